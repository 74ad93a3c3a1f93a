package eurekaarticle

import (
	"time"

	"sdchaos/figure"
	"sdchaos/history"
)

// modelWindows returns the run's fault windows and marks on a model-time
// axis in the given unit (time.Second or time.Minute), leaving out probes.
func (m modelRun) modelWindows(h *history.History, unit time.Duration) ([]figure.Window, []figure.Mark) {
	x := func(d time.Duration) float64 { return float64(m.Clock.OfReal(d)) / float64(unit) }
	return figure.Windows(figure.Without(h.Events, history.Probe), float64(m.Duration)/float64(unit), x)
}

// minutes converts a model time to minutes on a plot's axis.
func minutes(d time.Duration) float64 { return d.Minutes() }
