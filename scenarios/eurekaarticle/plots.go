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

// windowsSince returns the fault windows and marks of es (probes left
// out) on a model-time axis in the given unit counted from zero (model
// time since the recorder's zero: the partition, say).
func (m modelRun) windowsSince(es history.Events, unit, zero time.Duration) ([]figure.Window, []figure.Mark) {
	x := func(d time.Duration) float64 { return float64(m.Clock.OfReal(d)-zero) / float64(unit) }
	return figure.Windows(figure.Without(es, history.Probe), float64(m.Duration-zero)/float64(unit), x)
}

// minutes converts a model time to minutes on a plot's axis.
func minutes(d time.Duration) float64 { return d.Minutes() }
