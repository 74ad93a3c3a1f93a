package nacosincident

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/scenarios"
)

// Plots draws each caller's ok and failed calls per second with the member's kill and
// relaunch shaded (callers that counted the same every second share a panel).
func (s *memberRestart) Plots(h *history.History) ([]figure.Plot, error) {
	m, why := s.measure(h)
	if why != "" {
		return nil, fmt.Errorf("nacos-member-restart: %s", why)
	}
	return scenarios.PerSecondPlotAlike("nacos-member-restart", h, m.series, s.rows()...)
}

// Plots draws each caller's ok and failed calls per second with the two crashes marked
// (callers that counted the same every second share a panel).
func (s *protect) Plots(h *history.History) ([]figure.Plot, error) {
	m, why := s.measure(h)
	if why != "" {
		return nil, fmt.Errorf("nacos-protect-threshold: %s", why)
	}
	return scenarios.PerSecondPlotAlike("nacos-protect-threshold", h, m.series, s.rows()...)
}
