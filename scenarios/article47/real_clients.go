package article47

import (
	"fmt"

	"sdchaos/caller"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// realNames returns the real clients that ran (none when switched off).
func realNames(on bool) []string { return scenarios.RealClients{On: on}.Names() }

// userNames returns the user's client when one ran (--client).
func userNames(c scenarios.ClientParams) []string {
	if c.Exec == "" {
		return nil
	}
	return []string{scenarios.ClientName}
}

// userRows returns the table row of the user's client, if one ran.
func userRows(c scenarios.ClientParams) []report.Row {
	if c.Exec == "" {
		return nil
	}
	return []report.Row{{Key: scenarios.ClientName, Label: "your client: " + c.Exec}}
}

// realRows returns the table rows of the real clients that ran, lettered from next.
func realRows(on bool, next byte) []report.Row {
	rows := scenarios.RealClients{On: on}.Rows("real client")
	for i := range rows {
		rows[i].Label = fmt.Sprintf("(%c) %s", next+byte(i), rows[i].Label)
	}
	return rows
}

// resolverKeeps is the rule behind every "real client" band here.
const resolverKeeps = "etcd's naming resolver changes the client's addresses only on watch events, and a broken " +
	"or silent watch sends none (client/v3/naming/resolver: watch() returns when its channel closes), so the " +
	"balancer keeps its last addresses"

// realKeepChecks judge real clients that must serve every second, as keep
// does, while the registry is gone.
func realKeepChecks(series map[string]report.Series, on bool, rate float64, secs int) []report.Check {
	due := caller.PerSecondDue(rate, secs)
	var cs []report.Check
	for _, name := range realNames(on) {
		bad, why := report.BadSeconds(series[name], due, 0, secs)
		cs = append(cs, report.Exactly(name+": seconds not all ok", 0, "").From(resolverKeeps+": as keep").
			Says(report.Says("— (the article ran no real client)")).JudgeText(float64(bad), why))
	}
	return cs
}

// concludeReal says which policy each real client (and the user's) behaved as.
func concludeReal(res *report.Result, series map[string]report.Series, on bool, user scenarios.ClientParams, policies []string) {
	for _, name := range append(realNames(on), userNames(user)...) {
		best, same, total := report.Resembles(series, name, policies)
		ok, fail := series[name].Total()
		who := "The real client " + name
		if name == scenarios.ClientName {
			who = "Your client"
		}
		res.Conclude(fmt.Sprintf("%s served %d and failed %d: it behaved as %s in %d of %d seconds.", who, ok, fail, best, same, total))
	}
}
