package nacosarticle

import (
	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// Plots draws each caller's ok and failed requests per second with the
// registry's unreachable span shaded and the restart marked: the caller
// that restarts with an empty list fails until the registry is back, the
// one that loads its snapshot does not; the restarted real clients beside.
func (s *snapshotAtStart) Plots(h *history.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	return scenarios.PerSecondPlot("snapshot-at-start", h, m.series, append([]report.Row{
		{Key: callerBefore, Label: "before the restart (writes the snapshot)"},
		{Key: callerNoSnap, Label: "nosnap: restarts with an empty list"},
		{Key: callerSnap, Label: "snap: restarts from the disk snapshot"}}, s.realRows()...)...)
}

// Curves are what a sweep plots (over --outage or --refresh, say): what
// the caller without a snapshot lost, and when it served again.
func (s *snapshotAtStart) Curves() []scenarios.Curve {
	return []scenarios.Curve{
		{Name: "nosnap: failed requests until the registry is back", Metric: "nosnap.fail_until_back"},
		{Name: "nosnap: first success after the registry is back", Metric: "nosnap.first_ok_after_back_s", Check: "nosnap: first success after the registry is back", Unit: "s"},
		{Name: "snap: failed requests", Metric: "snap.fail", Check: "snap: failures"},
	}
}
