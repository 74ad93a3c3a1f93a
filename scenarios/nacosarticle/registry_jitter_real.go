package nacosarticle

import (
	"fmt"
	"time"

	"sdchaos/report"
)

// realNames lists the real clients that ran.
func (s *registryJitter) realNames() []string { return s.Real.Names() }

// realRows are their table rows.
func (s *registryJitter) realRows() []report.Row { return s.Real.Rows("real client") }

// realEmptyMax bounds a real client's failures after the jitter when
// leases expired: the watch delivers the deletes, then the puts of the
// re-registrations (each instance at its next renewal, ≤ --renew, through
// a connection back within the 1 s reconnect back-off, + 0.5 s).
func (s *registryJitter) realEmptyMax() float64 {
	return s.Call.Rate*(s.Svc.Renew+time.Second+500*time.Millisecond).Seconds() + 2
}

const realResolver = "the resolver changes addresses only on watch events (client/v3/naming/resolver); a blackholed watch delivers none"

// realChecks judge the real clients: nothing fails during the jitter; after
// it nothing without expired leases, at most realEmptyMax with them; the
// last second all ok.
func (s *registryJitter) realChecks(m jitterMeasure) []report.Check {
	var cs []report.Check
	for _, name := range s.realNames() {
		if !s.unpredicted(m) {
			cs = append(cs, s.realJitterChecks(name, m)...)
		}
		cs = append(cs, report.Exactly(name+": seconds not all ok at the end", 0, "").From("recovers by itself").
			Says(report.Says("— (the article ran no real client)")).JudgeText(float64(m.lastBad[name]), m.lastWhy[name]))
	}
	return cs
}

// realJitterChecks judge a real client's failures during the jitter (none)
// and after it (none, or a bounded empty window when leases expired).
func (s *registryJitter) realJitterChecks(name string, m jitterMeasure) []report.Check {
	basis := realResolver + ": as keep"
	if s.lossy() {
		basis = "the resolver changes addresses only on watch events (client/v3/naming/resolver); no lease expired, so no key changed and a watch that got through had nothing to deliver; the calls to the instances do not cross the lossy links"
	}
	cs := []report.Check{report.Exactly(name+": failures during the jitter", 0, "").From(basis).
		Says(report.Says("— (the article ran no real client)")).Judge(float64(m.failDuring[name]))}
	after := report.Exactly(name+": failures after the jitter", 0, "").
		From("no lease expired: the resumed watch delivers no event").Says(report.Says("— (the article ran no real client)"))
	if m.reregistered > 0 {
		after = report.Band(name+": failures after the jitter", 0, s.realEmptyMax(), "").
			From(fmt.Sprintf("%d instances registered again: the resumed watch delivers the deletes, then the re-registrations' puts; empty in between: ≤ rate × (renew + 1 s back-off + 0.5 s) + 2",
				m.reregistered)).Says(report.Says("— (the article ran no real client)"))
	}
	return append(cs, after.Judge(float64(m.failAfter[name])))
}

// concludeReal says which policy each real client behaved as.
func (s *registryJitter) concludeReal(res *report.Result, m jitterMeasure) {
	for _, name := range s.realNames() {
		best, same, total := report.Resembles(m.series, name, jitterNames())
		ok, fail := m.series[name].Total()
		res.Conclude(fmt.Sprintf("The real client %s served %d and failed %d (%d after the jitter): it behaved as %s in %d of %d seconds.",
			name, ok, fail, m.failAfter[name], best, same, total))
	}
}
