package nacosarticle

import (
	"slices"
	"time"

	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/report"
)

// kvOpTimeout is the deadline of each key-value op in registry-jitter.
const kvOpTimeout = time.Second

// judgeJitterKV checks the key-value traffic: (a) puts and linearizable
// gets linearizable, (c) no acknowledged put lost at the end; every
// member's serializable gets are added and reported, not judged. A history
// without key-value traffic (recorded before it existed) is said so.
func judgeJitterKV(res *report.Result, h *history.History) {
	var members []string
	for _, kv := range linearize.FromOps(h.Ops) {
		if kv.Member != linearize.Final && !slices.Contains(members, kv.Member) {
			members = append(members, kv.Member)
		}
	}
	slices.Sort(members)
	j, ok := linearize.JudgeOps(h.Ops, members, linearize.DefaultTimeout)
	if !ok {
		res.Conclude("This history holds no key-value traffic (it was recorded before the traffic existed): linearizability was not checked.")
		return
	}
	j.AddTo(res, h.Events, j.LinearizableCheck(report.Says("")), j.DurableCheck(report.Says("")))
}
