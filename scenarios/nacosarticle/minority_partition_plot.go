package nacosarticle

import (
	"fmt"

	"sdchaos/figure"
	"sdchaos/linearize"
	"sdchaos/report"
)

// Plots draws every probe on the majority and the isolated member, and
// every key-value operation on each member, as bars from start to end
// coloured by outcome, over the window in which one member is cut off from
// its peers: the majority keeps writing; the isolated member answers
// serializable reads (stale) and times out on the rest until it catches up.
func (s *minorityPartition) Plots(h *report.History) ([]figure.Plot, error) {
	ws, ms := figure.RunWindows(h.Events, h.Timeline.Seconds())
	lanes := figure.LanesOf(h.Ops, []string{"majority/", "isolated/", "healed/", linearize.Prefix}, nil)
	if len(lanes) == 0 {
		return nil, fmt.Errorf("minority-partition: no probe or key-value operation recorded")
	}
	p, err := figure.Lanes("Probes and key-value operations, each a bar from start to end (one member cut off from its peers)", lanes, ws, ms)
	if err != nil {
		return nil, fmt.Errorf("minority-partition: %w", err)
	}
	f := figure.One("operations", p)
	f.Height = figure.LanesHeight(len(lanes))
	return []figure.Plot{f}, nil
}
