package nacosarticle

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"sdchaos/cluster"
	"sdchaos/report"
	"sdchaos/storm"
)

// lacking says which of the families fs a member did not export in either
// phase of a size ("" when every member exported them all): the figures
// made of them are missing, and a check that needs them cannot judge.
func lacking(sz stormSize, fs ...cluster.Family) string {
	return both(sz.imm.load.Lacking(fs...), sz.jit.load.Lacking(fs...))
}

// errorsUntyped says why the registry's error count of a size cannot be
// judged: the calls' ends were not exported, or streams ended for lack of
// a leader or closed by their clients (cluster.EndNoLeaderOrClosed) on
// members whose leader is not known; "" when it can.
func errorsUntyped(sz stormSize) string {
	if why := lacking(sz, cluster.FamilyHandled); why != "" {
		return why + ": the registry's errors are not measured"
	}
	if n := sz.imm.load.Untyped + sz.jit.load.Untyped; n > 0 {
		return fmt.Sprintf("%.0f streams ended with a code that members before etcd 3.7 give both to a stream without a leader and to one its client closed, and the members export no leader state (%s)", n,
			lacking(sz, cluster.FamilyHasLeader, cluster.FamilyLeaderChanges))
	}
	return ""
}

// servedText is the registry's p99 serving time in words.
func servedText(l storm.RegistryLoad) string {
	if l.DurationsMissing() != "" {
		return "p99 served not measured"
	}
	return fmt.Sprintf("p99 served in %s ms", msText(l.P99ms, l.TooSlow))
}

// errorsText is the registry's error count in words.
func errorsText(sz stormSize, l storm.RegistryLoad) string {
	if errorsUntyped(sz) != "" {
		return "errors not measured"
	}
	return fmt.Sprintf("%.0f answered with an error", l.TotalErrors)
}

// msText prints milliseconds, "—" when not measured, "> x" past the
// histogram's last bound.
func msText(v float64, beyond bool) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "—"
	case beyond:
		return fmt.Sprintf("> %.0f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// receivedText is what the registry received and how it answered, after
// each heal, in words.
func receivedText(sz stormSize) string {
	imm, jit := sz.imm.load, sz.jit.load
	if why := lacking(sz, cluster.FamilyStarted); why != "" {
		return fmt.Sprintf("the calls the registry received are not measured (%s); immediate: %s, %s; jitter: %s, %s",
			why, servedText(imm), errorsText(sz, imm), servedText(jit), errorsText(sz, jit))
	}
	return fmt.Sprintf("the registry received at most %.0f calls in 100 ms after an immediate heal (%s, %s) and %.0f with jittered back-off (%s, %s)",
		imm.Peak(), servedText(imm), errorsText(sz, imm), jit.Peak(), servedText(jit), errorsText(sz, jit))
}

// both joins what the two phases of a size say ("" for neither).
func both(imm, jit string) string {
	switch {
	case imm == jit || jit == "":
		return imm
	case imm == "":
		return jit
	}
	return "immediate: " + imm + "; jitter: " + jit
}

// concludeMissing says which of the registry's figures are missing at a
// size and why, and how the streams that ended Unavailable were counted.
func concludeMissing(res *report.Result, sz stormSize) {
	if why := both(sz.imm.load.DurationsMissing(), sz.jit.load.DurationsMissing()); why != "" {
		res.Conclude(fmt.Sprintf("At N = %d the registry's serving time is not measured: %s.", sz.n, why))
	}
	if why := errorsUntyped(sz); why != "" {
		res.Conclude(fmt.Sprintf("At N = %d the registry's errors are not measured: %s.", sz.n, why))
	}
	if u := sz.imm.load.ClosedCodedAsErrors + sz.jit.load.ClosedCodedAsErrors; u > 0 {
		res.Conclude(fmt.Sprintf("At N = %d, %.0f and %.0f streams ended with an error code (Unavailable, etcd's \"no leader\", or on LeaseKeepAlive Unknown, \"request cancelled\") on members running etcd %s that had a leader throughout: "+
			"etcd before 3.7 ends a stream its client cancelled that way (etcd-io/etcd#13632), so they count as closed by their clients — the registrants' KeepAliveOnce streams, and those the cut ended — not as the registry's errors.",
			sz.n, sz.imm.load.ClosedCodedAsErrors, sz.jit.load.ClosedCodedAsErrors, versions(sz)))
	}
}

// versions lists the members' etcd versions over both phases.
func versions(sz stormSize) string {
	vs := append([]string(nil), sz.imm.load.Versions...)
	for _, v := range sz.jit.load.Versions {
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return "of an unknown version"
	}
	return strings.Join(vs, ", ")
}

// registryNotes are the registry table's notes on figures a member did not
// export and on the streams that ended Unavailable.
func registryNotes(sizes []stormSize) []string {
	var out []string
	for _, sz := range sizes {
		if why := both(sz.imm.load.DurationsMissing(), sz.jit.load.DurationsMissing()); why != "" {
			out = append(out, fmt.Sprintf("— at N = %d, served: %s", sz.n, why))
		}
		if why := errorsUntyped(sz); why != "" {
			out = append(out, fmt.Sprintf("— at N = %d, answered: %s", sz.n, why))
		}
		if why := lacking(sz, cluster.FamilyStarted); why != "" {
			out = append(out, fmt.Sprintf("— at N = %d, received: %s", sz.n, why))
		}
		if why := lacking(sz, cluster.FamilyHasLeader, cluster.FamilyLeaderChanges); why != "" {
			out = append(out, fmt.Sprintf("— at N = %d, leader changes and fell over: %s", sz.n, why))
		}
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			if l := sd.load; l.ClosedCodedAsErrors > 0 {
				out = append(out, fmt.Sprintf("N = %d, %s: %.0f of the %.0f streams closed by their clients ended with an error code, on members running etcd %s that had a leader throughout",
					sz.n, sd.phase.Strategy, l.ClosedCodedAsErrors, l.ClosedByClients, strings.Join(l.Versions, ", ")))
			}
		}
	}
	return out
}
