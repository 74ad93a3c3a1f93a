package scenarios

import (
	"context"
	"flag"
	"fmt"
	"math"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "passive-ejection",
		Article: "article 47.2",
		Summary: "an instance dies while the registry is down: no ejection vs local ejection after a failed call",
		Help: `Setup: as cache-on-failure; both callers keep their list on a failed refresh. All 3 etcd
members are SIGKILLed at --outage-at; one instance (drawn from --seed) crashes at --crash-at
(connection refused, no more renewals). "none" keeps sending to it round-robin; "eject" skips an
instance locally for --eject after a failed call to it.

Reproduced when: none fails, in every whole second after the crash, rate/instances of its
requests (rounded down or up; 13–14 at 40/s), and rate × (duration − crash-at) / instances in
total within ±25 % (article 80 of 400); eject fails at most 2 per ejection period after the
crash (article 1 of 400); neither fails before the crash.`,
		New: func() Config {
			return &passiveEjection{trafficParams: defaultTrafficParams(),
				OutageAt: time.Second, CrashAt: 4 * time.Second, Eject: 30 * time.Second}
		},
	})
}

// passiveEjection is article 47.2.
type passiveEjection struct {
	trafficParams
	OutageAt, CrashAt time.Duration
	Eject             time.Duration
}

func (s *passiveEjection) Flags(fs *flag.FlagSet) {
	s.trafficParams.bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when all etcd members are SIGKILLed")
	fs.DurationVar(&s.CrashAt, "crash-at", s.CrashAt, "when one instance crashes")
	fs.DurationVar(&s.Eject, "eject", s.Eject, "how long the eject caller skips an instance after a failed call")
}

func (s *passiveEjection) Validate(c Common) error {
	if err := s.trafficParams.validate(); err != nil {
		return err
	}
	switch {
	case s.svc.Instances < 2:
		return Usagef("--instances (%d) must be at least 2 (one crashes, one must be left)", s.svc.Instances)
	case s.OutageAt < 0 || s.OutageAt >= c.Duration:
		return Usagef("--outage-at (%s) must be within [0, --duration %s)", s.OutageAt, c.Duration)
	case s.CrashAt <= 0 || s.CrashAt >= c.Duration:
		return Usagef("--crash-at (%s) must be within (0, --duration %s)", s.CrashAt, c.Duration)
	case s.Eject <= 0:
		return Usagef("--eject (%s) must be positive", s.Eject)
	}
	return nil
}

func (s *passiveEjection) Run(ctx context.Context, env *Env) (*report.Result, error) {
	phase := s.call.phase(env)
	victim := env.Rand.IntN(s.svc.Instances)
	rec, err := runTrafficPlan(ctx, env, s.svc, trafficPlan{
		callers: []caller.Config{
			s.call.config("none", phase, caller.Policy{OnError: caller.KeepList}),
			s.call.config("eject", phase, caller.Policy{OnError: caller.KeepList, Eject: s.Eject}),
		},
		timeline: func(r *rig) (fault.Timeline, error) {
			return fault.Timeline{
				{At: s.OutageAt, Fault: fault.KillNodes{Nodes: r.cluster.Nodes()}},
				{At: s.CrashAt, Fault: fault.CrashInstance{Instance: r.group.Instances[victim]}},
			}, nil
		},
	})
	if err != nil {
		return nil, err
	}
	return s.judge(rec.Ops(), rec.Marks(), env.Duration), nil
}

// judge turns the recorded run into the result (pure).
func (s *passiveEjection) judge(ops []report.Op, marks []report.Mark, d time.Duration) *report.Result {
	res := report.NewResult("")
	secs := seconds(d)
	res.Series = report.PerSecond(ops, []string{"none", "eject"}, secs)
	res.Marks, res.TimelineSeconds = marks, d.Seconds()
	res.AddTable(report.SecondsTable("Per-second ok/fail (article 47.2: none 27/13, 26/14 … 80/400 failed; eject 39/1 then 40/0, 1/400)",
		[]report.Row{{Key: "none", Label: "(a) no passive ejection"}, {Key: "eject", Label: fmt.Sprintf("(b) eject locally for %s after a failed call", s.Eject)}},
		res.Series, marks))
	outage, ok1 := report.MarkNamed(marks, "SIGKILL")
	crash, ok2 := report.MarkNamed(marks, "crash")
	if !ok1 || !ok2 {
		res.AddCheck(report.Bool("faults injected", "registry down, then a crash", false, true, "yes", "no"))
		return res
	}
	m := res.Metrics
	m["outage_at_s"], m["crash_at_s"] = outage.At.Seconds(), crash.At.Seconds()
	addSeriesMetrics(m, "none", res.Series["none"])
	addSeriesMetrics(m, "eject", res.Series["eject"])
	s.checkBeforeCrash(res, ops, crash)
	s.checkNone(res, crash, d)
	s.checkEject(res, crash, d)
	s.conclude(res)
	return res
}

func (s *passiveEjection) checkBeforeCrash(res *report.Result, ops []report.Op, crash report.Mark) {
	for _, name := range []string{"none", "eject"} {
		f, failed := firstFailure(ops, name)
		early := failed && f.Scheduled < crash.At-schedSlack
		res.AddCheck(report.Bool(name+": no failure before the crash", "40/0 in s0–s3", !early, true, "none", "failed early"))
	}
}

// checkNone: in every full second after the crash, rate/n of the requests fail.
func (s *passiveEjection) checkNone(res *report.Result, crash report.Mark, d time.Duration) {
	series, n := res.Series["none"], float64(s.svc.Instances)
	due := perSecondDue(s.call.Rate, seconds(d))
	firstFull := int(math.Ceil(crash.At.Seconds())) // the crash lands just after its second began
	lo, hi, worst, pass := 0, 0, "", true
	for i := firstFull; i < len(series.Fail) && i < int(d/time.Second); i++ {
		lo, hi = int(math.Floor(float64(due[i])/n)), int(math.Ceil(float64(due[i])/n))
		if f := series.Fail[i]; f < lo || f > hi {
			pass, worst = false, fmt.Sprintf("s%d: %d failed", i, f)
		}
	}
	if worst == "" {
		worst = fmt.Sprintf("%d–%d per second in s%d–s%d", minFail(series, firstFull), maxFail(series, firstFull), firstFull, len(series.Fail)-1)
	}
	res.AddCheck(report.Check{Name: "none: failures per full second after the crash", Article: "13–14 of 40",
		Measured: worst, Band: fmt.Sprintf("%d–%d (rate/%d)", lo, hi, s.svc.Instances), Pass: pass})
	expect := s.call.Rate * (d - crash.At).Seconds() / n
	res.Metrics["none.fail_theory"] = expect
	res.AddCheck(report.Between("none: failed requests in total", "80 of 400", res.Metrics["none.fail"],
		math.Floor(0.75*expect), math.Ceil(1.25*expect), ""))
}

func minFail(s report.Series, from int) int {
	m := math.MaxInt
	for _, f := range s.Fail[from:] {
		m = min(m, f)
	}
	return m
}

func maxFail(s report.Series, from int) int {
	m := 0
	for _, f := range s.Fail[from:] {
		m = max(m, f)
	}
	return m
}

func (s *passiveEjection) checkEject(res *report.Result, crash report.Mark, d time.Duration) {
	periods := math.Ceil((d - crash.At).Seconds() / s.Eject.Seconds())
	res.AddCheck(report.AtMost("eject: failed requests in total", "1 of 400", res.Metrics["eject.fail"], 2*periods, ""))
}

func (s *passiveEjection) conclude(res *report.Result) {
	m := res.Metrics
	res.Conclude(fmt.Sprintf("The registry was down from %.2f s, so nobody removed the instance that crashed at %.2f s.",
		m["outage_at_s"], m["crash_at_s"]))
	res.Conclude(fmt.Sprintf("Without passive ejection the caller failed %.0f of %.0f requests (theory %.1f: 1/%d of every request after the crash); with local ejection for %s it failed %.0f.",
		m["none.fail"], m["none.ok"]+m["none.fail"], m["none.fail_theory"], s.svc.Instances, s.Eject, m["eject.fail"]))
	if m["eject.fail"] < m["none.fail"] {
		res.Conclude(fmt.Sprintf("A caller that corrects its own cache after a failed call loses %.0f× fewer requests while the registry cannot.",
			m["none.fail"]/math.Max(m["eject.fail"], 1)))
	} else {
		res.Conclude("Passive ejection did not reduce failures in this run.")
	}
}
