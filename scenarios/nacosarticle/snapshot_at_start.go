//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "snapshot-at-start",
		Article: "Nacos article",
		Summary: "a caller restarts while the registry is unreachable: empty start vs a disk snapshot of its list",
		Help: `Setup: 3 etcd members behind loopback proxies, --instances instances. A caller ("before") runs
from the start and writes its instance list to a disk snapshot whenever the list changes (temp file
+ rename). At --outage-at every client link to the registry is blackholed for --outage. At
--restart-at, inside the outage, the caller "restarts": "before" stops and two fresh callers with
no memory start: "nosnap" with an empty list, "snap" with the list loaded from the snapshot (Nacos
namingLoadCacheAtStart; a missing or corrupt snapshot would be a warning and an empty start).
Both keep a list on a failed refresh.

Reproduced when: before fails nothing; nosnap fails every request from its start until the
registry is back, and is all ok in the last second; snap fails nothing.`,
		New: func() Config {
			return &snapshotAtStart{trafficParams: defaultTrafficParams(),
				OutageAt: 2 * time.Second, Outage: 6 * time.Second, RestartAt: 4 * time.Second}
		},
	})
}

// snapshotAtStart is the Nacos article's load-cache-at-start remedy.
type snapshotAtStart struct {
	trafficParams
	OutageAt, Outage, RestartAt time.Duration
}

func (s *snapshotAtStart) Defaults(c *Common) { c.Duration = 12 * time.Second }

func (s *snapshotAtStart) Flags(fs *flag.FlagSet) {
	s.trafficParams.bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when every client link to the registry is blackholed")
	fs.DurationVar(&s.Outage, "outage", s.Outage, "how long the registry stays unreachable")
	fs.DurationVar(&s.RestartAt, "restart-at", s.RestartAt, "when the caller restarts (inside the outage)")
}

func (s *snapshotAtStart) Validate(c Common) error {
	if err := s.trafficParams.validate(); err != nil {
		return err
	}
	back := s.OutageAt + s.Outage
	switch {
	case s.OutageAt <= 0 || s.Outage <= 0:
		return Usagef("--outage-at (%s) and --outage (%s) must be positive", s.OutageAt, s.Outage)
	case s.RestartAt <= s.OutageAt || s.RestartAt >= back:
		return Usagef("--restart-at (%s) must fall inside the outage (%s, %s)", s.RestartAt, s.OutageAt, back)
	case c.Duration < back+2*s.call.Refresh:
		return Usagef("--duration (%s) must leave two refresh periods after the registry is back (≥ %s)", c.Duration, back+2*s.call.Refresh)
	}
	return nil
}

func (s *snapshotAtStart) Run(ctx context.Context, env *Env) (*report.Result, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, err
	}
	dir, err := sup.TempDir("sdchaos-snapshot-*", env.Keep)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "instances.json")
	phase := s.call.phase(env)
	keep := caller.Policy{OnError: caller.KeepList}
	before := s.call.config("before", phase, keep)
	before.Stop, before.Snapshot, before.Log = s.RestartAt, path, env.Log
	nosnap := s.call.config("nosnap", phase, keep)
	nosnap.Start = s.RestartAt
	snap := s.call.config("snap", phase, keep)
	snap.Start, snap.Snapshot, snap.LoadSnapshot, snap.Log = s.RestartAt, path, true, env.Log
	rec, err := runTrafficPlan(ctx, env, s.svc, trafficPlan{
		callers: []caller.Config{before, nosnap, snap},
		rig:     rigOptions{proxied: true},
		timeline: func(r *rig) (fault.Timeline, error) {
			return fault.Timeline{{At: s.OutageAt, For: s.Outage, Fault: fault.Blackhole{Proxies: r.proxies}}}, nil
		},
	})
	if err != nil {
		return nil, err
	}
	return s.judge(rec.Ops(), rec.Marks(), env.Duration), nil
}

// judge turns the run into the result (pure).
func (s *snapshotAtStart) judge(ops []report.Op, marks []report.Mark, d time.Duration) *report.Result {
	res := report.NewResult("")
	secs := seconds(d)
	names := []string{"before", "nosnap", "snap"}
	res.Series = report.PerSecond(ops, names, secs)
	marks = append(marks, report.Mark{At: s.RestartAt, Label: "caller restarts"})
	res.Marks, res.TimelineSeconds = marks, d.Seconds()
	res.AddTable(report.SecondsTable("Per-second ok/fail: the caller restarts while the registry is unreachable", []report.Row{
		{Key: "before", Label: "before the restart (writes the snapshot)"},
		{Key: "nosnap", Label: "nosnap: restarts with an empty list"},
		{Key: "snap", Label: "snap: restarts from the disk snapshot"},
	}, res.Series, marks))
	back, ok := report.MarkNamed(marks, "healed: ")
	if !ok {
		res.AddCheck(report.Bool("registry back", "after the outage", false, true, "yes", "no"))
		return res
	}
	m := res.Metrics
	for _, n := range names {
		addSeriesMetrics(m, n, res.Series[n])
	}
	m["registry_back_s"] = back.At.Seconds()
	failedBefore, total := 0, 0
	for _, op := range report.Filter(ops, "nosnap") {
		if op.Scheduled < back.At {
			total++
			if op.Outcome != report.OK {
				failedBefore++
			}
		}
	}
	last := secs - 1
	due := perSecondDue(s.call.Rate, secs)
	recovered, why := allOK(res.Series["nosnap"], due, last, secs)
	res.AddCheck(
		report.Equal("before: failures", "0", m["before.fail"], 0, ""),
		report.Between("nosnap: failed share until the registry is back", "every request fails", pct(failedBefore, total), 100, 100, " %"),
		report.Check{Name: "nosnap: recovered once the registry is back (last second)", Article: "serves again", Measured: why,
			Band: fmt.Sprintf("%d/0 in s%d", due[last], last), Pass: recovered},
		report.Equal("snap: failures", "0 (serves at once)", m["snap.fail"], 0, ""),
	)
	res.Conclude(fmt.Sprintf("Restarted at %.1f s while the registry was unreachable (until %.1f s): without a snapshot the caller failed %d of %d requests until the registry came back; with its disk snapshot it failed %.0f of %.0f.",
		s.RestartAt.Seconds(), back.At.Seconds(), failedBefore, total, m["snap.fail"], m["snap.ok"]+m["snap.fail"]))
	return res
}
