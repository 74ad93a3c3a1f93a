package scenarios

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "cache-on-failure",
		Article: "article 47.1",
		Summary: "the whole registry dies, instances live: keep vs clear the cached list on a failed refresh",
		Help: `Setup: 3 etcd members (own processes), --instances fake instances registered on leases
(--ttl, renewed every --renew), two callers side by side at --rate req/s each, refreshing their
instance list every --refresh (deadline --refresh-timeout): "keep" keeps the old list when a
refresh fails, "clear" empties it. At --outage-at all 3 etcd members are SIGKILLed; the instances
stay up. Both callers share the refresh phase, drawn from --seed.

Reproduced when: keep has rate ok / 0 fail in every second; clear is all ok before the outage,
fails first no later than refresh + refresh-timeout (+ one send interval) after it, and never
succeeds again (the bound has 50 ms of slack for timer and scheduling delays). Article: keep 40/0 every second, clear 1/39 at s2 then 0/40.`,
		New: func() Config {
			return &cacheOnFailure{trafficParams: defaultTrafficParams(), OutageAt: 2 * time.Second}
		},
	})
}

// cacheOnFailure is article 47.1.
type cacheOnFailure struct {
	trafficParams
	OutageAt time.Duration
}

func (s *cacheOnFailure) Flags(fs *flag.FlagSet) {
	s.trafficParams.bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when all etcd members are SIGKILLed")
}

func (s *cacheOnFailure) Validate(c Common) error {
	if err := s.trafficParams.validate(); err != nil {
		return err
	}
	if s.OutageAt <= 0 || s.OutageAt >= c.Duration {
		return Usagef("--outage-at (%s) must be within (0, --duration %s)", s.OutageAt, c.Duration)
	}
	return nil
}

func (s *cacheOnFailure) Run(ctx context.Context, env *Env) (*report.Result, error) {
	phase := s.call.phase(env)
	env.Printf("refresh phase of both callers: %s", phase.Round(time.Millisecond))
	rec, err := runTrafficPlan(ctx, env, s.svc, trafficPlan{
		callers: []caller.Config{
			s.call.config("keep", phase, caller.Policy{OnError: caller.KeepList}),
			s.call.config("clear", phase, caller.Policy{OnError: caller.ClearList}),
		},
		timeline: func(r *rig) (fault.Timeline, error) {
			return fault.Timeline{{At: s.OutageAt, Fault: fault.KillNodes{Nodes: r.cluster.Nodes()}}}, nil
		},
	})
	if err != nil {
		return nil, err
	}
	return s.judge(rec.Ops(), rec.Marks(), env.Duration), nil
}

// judge turns the recorded run into the result (pure).
func (s *cacheOnFailure) judge(ops []report.Op, marks []report.Mark, d time.Duration) *report.Result {
	res := report.NewResult("")
	secs := seconds(d)
	res.Series = report.PerSecond(ops, []string{"keep", "clear"}, secs)
	res.Marks, res.TimelineSeconds = marks, d.Seconds()
	res.AddTable(report.SecondsTable("Per-second ok/fail (article 47.1: keep 40/0 every second; clear 40/0, 40/0, 1/39, then 0/40)",
		[]report.Row{{Key: "keep", Label: "(a) keep old list on refresh failure"}, {Key: "clear", Label: "(b) clear list on refresh failure"}},
		res.Series, marks))
	outage, ok := report.MarkNamed(marks, "SIGKILL")
	if !ok {
		res.AddCheck(report.Bool("registry killed", "at s2", false, true, "yes", "no"))
		return res
	}
	m := res.Metrics
	m["outage_at_s"] = outage.At.Seconds()
	addSeriesMetrics(m, "keep", res.Series["keep"])
	addSeriesMetrics(m, "clear", res.Series["clear"])
	due := perSecondDue(s.call.Rate, secs)
	keepOK, keepWhy := allOK(res.Series["keep"], due, 0, secs)
	res.AddCheck(report.Check{Name: "keep: every second all ok", Article: "40/0 every second", Measured: keepWhy,
		Band: "rate ok / 0 fail in every second", Pass: keepOK})
	preOK, preWhy := allOK(res.Series["clear"], due, 0, outage.Second())
	res.AddCheck(report.Check{Name: "clear: all ok before the outage", Article: "40/0 in s0–s1", Measured: preWhy,
		Band: "rate ok / 0 fail before s" + fmt.Sprint(outage.Second()), Pass: preOK})
	first, failed := firstFailure(ops, "clear")
	bound := s.call.Refresh + s.call.RefreshTimeout + time.Duration(float64(time.Second)/s.call.Rate) + schedSlack
	if !failed {
		m["clear.first_fail_s"] = -1
		res.AddCheck(report.Bool("clear: fails after the outage", "1/39 at s2", false, true, "fails", "never fails"))
	} else {
		delay := first.Scheduled - outage.At
		m["clear.first_fail_s"] = float64(int(first.Scheduled / time.Second))
		m["clear.first_fail_after_outage_s"] = delay.Seconds()
		res.AddCheck(report.Between("clear: first failure after the outage", "within s2 (< 1 s)",
			delay.Seconds(), 0, bound.Seconds(), " s"))
		okAfter := countAfter(ops, "clear", first.Scheduled, report.OK)
		res.AddCheck(report.Equal("clear: successes after its first failure", "0 (0/40 from s3)", float64(okAfter), 0, ""))
		m["clear.ok_after_first_fail"] = float64(okAfter)
	}
	s.conclude(res, outage, bound)
	return res
}

func (s *cacheOnFailure) conclude(res *report.Result, outage report.Mark, bound time.Duration) {
	m := res.Metrics
	keepOK, keepFail := int(m["keep.ok"]), int(m["keep.fail"])
	res.Conclude(fmt.Sprintf("The registry died at %.2f s. keep served %d of %d requests (%.1f %%) from its cached list.",
		outage.At.Seconds(), keepOK, keepOK+keepFail, pct(keepOK, keepOK+keepFail)))
	if m["clear.first_fail_s"] < 0 {
		res.Conclude("clear never failed: its refreshes did not fail within the run, so clearing never happened.")
		return
	}
	after := int(m["clear.ok_after_first_fail"])
	verb := "and failed every request after that"
	if after > 0 {
		verb = fmt.Sprintf("but still had %d successes after that", after)
	}
	res.Conclude(fmt.Sprintf("clear failed first %.2f s after the outage (theory: at most refresh %s + refresh timeout %s + one send interval + 50 ms slack = %.2f s) %s, although every instance was alive: clearing the cache on a failed refresh turns a control-plane fault into a data-plane outage.",
		m["clear.first_fail_after_outage_s"], s.call.Refresh, s.call.RefreshTimeout, bound.Seconds(), verb))
}
