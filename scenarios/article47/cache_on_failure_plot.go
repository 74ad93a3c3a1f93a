package article47

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// Plots draws each caller's ok and failed requests per second with the
// registry's outage shaded: keep serves on, clear fails from its first
// failed refresh after the outage.
func (s *cacheOnFailure) Plots(h *history.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	return scenarios.PerSecondPlot("cache-on-failure", h, m.series, append([]report.Row{
		{Key: "keep", Label: fmt.Sprintf("(a) keep the old list when a refresh fails — %g requests/s", s.Call.Rate)},
		{Key: "clear", Label: fmt.Sprintf("(b) clear the list when a refresh fails — %g requests/s", s.Call.Rate)}},
		append(realRows(s.Real.On, 'c'), userRows(s.Client)...)...)...)
}

// Curves are what a sweep plots (over --refresh, say): when clear first
// failed after the outage, with the band of its refresh rule, and both
// callers' failed requests.
func (s *cacheOnFailure) Curves() []scenarios.Curve {
	return []scenarios.Curve{
		{Name: "clear: first failure after the outage", Metric: "clear.first_fail_after_outage_s", Check: "clear: first failure after the outage", Unit: "s"},
		{Name: "clear: failed requests", Metric: "clear.fail"},
		{Name: "keep: failed requests", Metric: "keep.fail"},
	}
}
