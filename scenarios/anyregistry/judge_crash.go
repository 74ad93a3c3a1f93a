package anyregistry

import (
	"fmt"
	"math"
	"time"

	"sdchaos/experiment"
	"sdchaos/report"
	"sdchaos/rig"
)

// afterCrash judges a caller from an instance's crash until the registry
// returned: a list that still holds the dead instance sends it its share
// of the calls, unless the caller ejects it.
func (r *run) afterCrash(c experiment.Caller, from, crash, to time.Duration) {
	_, _, n, failed := r.splitAt(c.Name, from, crash, to)
	r.judgedSpan(c.Name, crash, to)
	text := fmt.Sprintf("%d of %d", failed, n)
	k := r.x.Instances.Count
	switch {
	case c.Kind == experiment.PolicyCaller && c.Policy == experiment.Clear:
		return // its list is empty by then: the outage's failures
	case c.Kind == experiment.PolicyCaller && c.Eject > 0:
		periods := math.Ceil((to - crash).Seconds() / c.Eject.D().Seconds())
		e := report.Band(c.Name+": failures after the instance crashed", 1, 2*periods, "").About(c.Name).
			From("the call that ejects fails; at most 2 per ejection period (the instance is tried again when it ends)")
		r.res.AddCheck(judgeCount(e, n, failed, text))
	case c.Kind == experiment.PolicyCaller:
		share := float64(n) / float64(k)
		e := report.Band(c.Name+": failures after the instance crashed", math.Max(0, math.Floor(share)-2), math.Ceil(share)+2, "").About(c.Name).
			From(fmt.Sprintf("round robin over %d instances, the dead one still listed: 1/%d of the %d calls (±2 at the crash's instant)", k, k, n))
		r.res.AddCheck(judgeCount(e, n, failed, text))
	case c.Kind == experiment.RealClient:
		b, ok := r.clientAfterCrash(c.Client, k, rig.RateOf(c), to-crash)
		if !ok {
			r.res.Conclude(fmt.Sprintf("%s failed %s calls after the crash (no rule here: not judged).", c.Name, text))
			return
		}
		r.res.AddCheck(judgeCount(report.Band(c.Name+": failures after the instance crashed", b.Lo, b.Hi, "").About(c.Name).From(b.Basis), n, failed, text))
	}
}
