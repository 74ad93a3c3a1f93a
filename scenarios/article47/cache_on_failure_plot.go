package article47

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/report"
)

// Plots draws each caller's ok and failed requests per second with the
// registry's outage shaded: keep serves on, clear fails from its first
// failed refresh after the outage.
func (s *cacheOnFailure) Plots(h *report.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	ws, ms := figure.RunWindows(h.Events, float64(m.secs))
	f, err := figure.PerSecond("per-second", figure.Callers(m.series,
		report.Row{Key: "keep", Label: fmt.Sprintf("(a) keep the old list when a refresh fails — %g requests/s", s.Call.Rate)},
		report.Row{Key: "clear", Label: fmt.Sprintf("(b) clear the list when a refresh fails — %g requests/s", s.Call.Rate)}), ws, ms)
	if err != nil {
		return nil, fmt.Errorf("cache-on-failure: %w", err)
	}
	return []figure.Plot{f}, nil
}
