package main

import (
	"strings"

	"sdchaos/history"
	"sdchaos/report"
)

// staleWords reports whether a stored report that still matches its judges in every verdict,
// figure and band should be rewritten by recheck --write all the same: its checks' bases now
// read otherwise (a rule's wording changed, not what it judges), or it was made or last
// re-judged by a harness with uncommitted changes and harness, the one judging now, is a
// commit's. Plain recheck does not count these: nothing a reader relies on moved. The
// conclusion is not compared: it quotes the judge's own timings (porcupine's), which differ
// from one judging to the next.
func staleWords(stored, now *report.Result, harness string) bool {
	basis := map[string]string{}
	for _, c := range stored.Checks {
		basis[c.Name] = c.Basis
	}
	for _, c := range now.Checks {
		if basis[c.Name] != c.Basis {
			return true
		}
	}
	return fromUncommitted(stored.Meta) && !strings.Contains(harness, history.Uncommitted)
}

// fromUncommitted reports whether m says its report was made, or last re-judged, by a harness
// with uncommitted changes.
func fromUncommitted(m *history.Meta) bool {
	if m == nil {
		return false
	}
	if m.Rejudged != nil {
		return strings.Contains(m.Rejudged.Harness, history.Uncommitted)
	}
	return strings.Contains(m.Harness, history.Uncommitted)
}
