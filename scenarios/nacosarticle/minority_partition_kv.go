package nacosarticle

import (
	"fmt"

	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/report"
)

// judgeKV checks the key-value traffic: (a) puts and linearizable gets
// linearizable, (b) the isolated member's serializable gets breaking
// linearizability (a stale read; judged unless --one-way), (c) no
// acknowledged put lost after healing. A history without key-value
// traffic (recorded before it existed) is said so, not judged.
func (s *minorityPartition) judgeKV(res *report.Result, h *history.History, m partitionMeasure) {
	j, ok := linearize.JudgeOps(h.Ops, []string{m.iso}, linearize.DefaultTimeout)
	if !ok {
		res.Conclude("This history holds no key-value traffic (it was recorded before the traffic existed): linearizability was not checked.")
		return
	}
	checks := []report.Check{j.LinearizableCheck(report.Says("linearizable reads and writes on the cut-off member fail rather than answer (47.3)"))}
	if s.OneWay {
		res.Conclude(fmt.Sprintf("With --one-way, %s may still receive the leader's entries, so a stale serializable read is not predicted: reported, not judged.", m.iso))
	} else {
		checks = append(checks, s.staleCheck(j, m))
	}
	checks = append(checks, j.DurableCheck(report.Says("")))
	j.AddTo(res, h.Events, checks...)
}

// staleCheck judges (b) when the history holds a read the partition rule
// forces to be stale: a put acknowledged after the cut took effect (the
// majority probe starts once it has), then a serializable get of the same
// key by the isolated member answered before the mend.
func (s *minorityPartition) staleCheck(j linearize.Judged, m partitionMeasure) report.Check {
	basis := "a member cut off from its peers in both directions receives no raft entry after the cut: its serializable get of a key put (and acknowledged by the majority) after the cut returns the older value"
	why := ""
	if _, _, ok := linearize.StaleForced(j.KVs, []string{m.iso}, m.probes[opMajLeader].Start, m.mend.At); !ok {
		why = fmt.Sprintf("no serializable get of %s followed, before the mend, a put of the same key acknowledged after the cut", m.iso)
	}
	return j.StaleCheck(basis, why, report.Says("serializable reads serve local, possibly stale data"))
}
