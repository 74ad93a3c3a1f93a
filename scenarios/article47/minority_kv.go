package article47

import (
	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/report"
)

// judgeKV checks the key-value traffic: (a) puts and linearizable gets
// linearizable, (c) no acknowledged put lost at the end; the survivor's
// serializable gets are added and reported, not judged (no put can be
// acknowledged during the outage). A history without key-value traffic
// (recorded before it existed) is said so, not judged.
func (s *minority) judgeKV(res *report.Result, h *history.History, m minorityMeasure) {
	j, ok := linearize.JudgeOps(h.Ops, []string{m.survivor}, linearize.DefaultTimeout)
	if !ok {
		res.Conclude("This history holds no key-value traffic (it was recorded before the traffic existed): linearizability was not checked.")
		return
	}
	j.AddTo(res, h.Events,
		j.LinearizableCheck(report.Says("linearizable reads and writes on the survivor fail rather than answer (47.3)")),
		j.DurableCheck(report.Says("3/3 instances present after the majority returns (47.3)")))
}
