package article47

import (
	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/scenarios"
)

// Plots draws every probe on the survivor and after the restart, and every
// key-value operation on each member, as bars from start to end coloured
// by outcome, over the window in which two members are dead: on the
// survivor only the serializable read succeeds; the linearizable read, the
// put and the renewal run to their deadline (unknown); after the restart
// everything is ok again. A serializable get of the survivor that the
// judging finds stale would be drawn as a stale read (none is expected: no
// put can be acknowledged while two members are dead).
func (s *minority) Plots(h *history.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	var cutoff []string
	if m.survivor != "" {
		cutoff = []string{m.survivor}
	}
	return scenarios.OperationsPlot("minority", "Probes and key-value operations, each a bar from start to end (2 of 3 members SIGKILLed)",
		h, scenarios.StaleReads(h, cutoff, nil))
}
