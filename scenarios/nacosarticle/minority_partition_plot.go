package nacosarticle

import (
	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/scenarios"
)

// Plots draws every probe on the majority and the isolated member, and
// every key-value operation on each member, as bars from start to end
// coloured by outcome, over the window in which one member is cut off from
// its peers: the majority keeps writing; the isolated member answers
// serializable reads (stale) and times out on the rest until it catches up.
func (s *minorityPartition) Plots(h *history.History) ([]figure.Plot, error) {
	return scenarios.OperationsPlot("minority-partition", "Probes and key-value operations, each a bar from start to end (one member cut off from its peers)",
		h, "majority/", "isolated/", "healed/", linearize.Prefix)
}
