package article47

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/linearize"
	"sdchaos/report"
)

// Plots draws every probe on the survivor and after the restart, and every
// key-value operation on each member, as bars from start to end coloured
// by outcome, over the window in which two members are dead: on the
// survivor only the serializable read succeeds; the linearizable read, the
// put and the renewal run to their deadline (unknown); after the restart
// everything is ok again.
func (s *minority) Plots(h *report.History) ([]figure.Plot, error) {
	ws, ms := figure.RunWindows(h.Events, h.Timeline.Seconds())
	lanes := figure.LanesOf(h.Ops, []string{"survivor/", "recovery/", "end/", linearize.Prefix}, nil)
	if len(lanes) == 0 {
		return nil, fmt.Errorf("minority: no probe or key-value operation recorded")
	}
	p, err := figure.Lanes("Probes and key-value operations, each a bar from start to end (2 of 3 members SIGKILLed)", lanes, ws, ms)
	if err != nil {
		return nil, fmt.Errorf("minority: %w", err)
	}
	f := figure.One("operations", p)
	f.Height = figure.LanesHeight(len(lanes))
	return []figure.Plot{f}, nil
}
