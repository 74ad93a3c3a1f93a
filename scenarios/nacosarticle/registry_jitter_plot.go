package nacosarticle

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// Plots draws each caller's ok and failed requests per second with the
// jitter shaded: naive fails from its first failed refresh until the
// links heal, the other policies serve on (and, when leases expired, keep
// fails after the heal where the remedies do not). The callers that
// counted the same every second share one panel that names them, so that
// the ones that failed stand out.
func (s *registryJitter) Plots(h *history.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	rows := make([]report.Row, len(jitterCallers))
	for i, jc := range jitterCallers {
		rows[i] = report.Row{Key: jc.name, Label: fmt.Sprintf("%s — %g requests/s", jc.label, s.Call.Rate)}
	}
	return scenarios.PerSecondPlotAlike("registry-jitter", h, m.series, append(rows, s.realRows()...)...)
}
