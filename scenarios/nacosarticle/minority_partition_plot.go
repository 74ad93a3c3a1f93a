package nacosarticle

import (
	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/scenarios"
)

// Plots draws every probe on the majority and the isolated member, and
// every key-value operation on each member, as bars from start to end
// coloured by outcome, over the window in which one member is cut off from
// its peers: the majority keeps writing; the isolated member answers
// serializable reads — stale ones, drawn as such (the judge's witnesses
// and the reads a newer acknowledged put proves stale, and the probe's
// read that missed the majority's new key) — and times out on the rest
// until it catches up.
func (s *minorityPartition) Plots(h *history.History) ([]figure.Plot, error) {
	m, _ := s.measure(h)
	var cutoff []string
	if m.iso != "" {
		cutoff = []string{m.iso}
	}
	return scenarios.OperationsPlot("minority-partition", "Probes and key-value operations, each a bar from start to end (one member cut off from its peers)",
		h, scenarios.StaleReads(h, cutoff, staleProbe))
}

// staleProbe reports whether op is the isolated member's serializable
// read probe and it was stale: answered, without the key the majority put
// (and acknowledged) before it began — the judge's rule.
func staleProbe(op history.Op) bool {
	return op.Caller == opIsoSerRead && okOf(op) && op.Count == 0
}
