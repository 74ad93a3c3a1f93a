package article47

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// Plots draws each caller's ok and failed requests per second with the
// registry's outage and the instance's crash shaded: without ejection one
// request in N keeps failing, with it only the call that ejects (marked
// with its count: one in 40 is a pixel high). Callers that counted the
// same every second (eject and the real clients) share a panel.
func (s *passiveEjection) Plots(h *history.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	return scenarios.PerSecondPlotAlike("passive-ejection", h, m.series, append([]report.Row{
		{Key: "none", Label: fmt.Sprintf("(a) no passive ejection — %g requests/s over %d instances", s.Call.Rate, s.Svc.Instances)},
		{Key: "eject", Label: fmt.Sprintf("(b) eject an instance locally for %s after a failed call", s.Eject)}},
		append(realRows(s.Real.On, 'c'), userRows(s.Client)...)...)...)
}

// Curves are what a sweep plots (over --eject or --instances, say): both
// callers' failed requests, none's beside its theory (1/N of the requests
// after the crash).
func (s *passiveEjection) Curves() []scenarios.Curve {
	return []scenarios.Curve{
		{Name: "none: failed requests", Metric: "none.fail", Theory: "none.fail_theory", Check: "none: failed requests in total"},
		{Name: "eject: failed requests", Metric: "eject.fail", Check: "eject: failed requests in total"},
	}
}
