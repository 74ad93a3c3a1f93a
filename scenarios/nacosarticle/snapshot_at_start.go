package nacosarticle

import (
	"context"
	"flag"
	"path/filepath"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/worlds/etcd"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "snapshot-at-start",
		Article: "Nacos article",
		Summary: "a caller restarts while the registry is unreachable: empty start vs a disk snapshot of its list",
		Help: `Setup: 3 etcd members behind loopback proxies, --instances instances. A caller ("before") runs
from the start and writes its instance list to a disk snapshot whenever the list changes (temp file
+ rename). At --outage-at every client link to the registry is blackholed for --outage. At
--restart-at, inside the outage, the caller "restarts": "before" stops and two fresh callers with
no memory start (each records its own start): "nosnap" with an empty list, "snap" with the list
loaded from the snapshot (Nacos namingLoadCacheAtStart, default false; a missing or corrupt
snapshot would be a warning and an empty start). All three keep their list on a failed refresh.

Bands: before fails nothing (a failed refresh keeps the list). nosnap has nothing to call until a
refresh succeeds: every request from its start until the registry is back fails (100 %); its first
success comes once the links heal, at its next refresh: [0, --refresh + --refresh-timeout + one
send interval + 50 ms] after the heal (a refresh held by the blackhole is answered at the heal);
after that it fails nothing. snap serves from the snapshot at once and fails nothing.
Real clients (--real-clients, on by default): two real gRPC clients (etcd's naming resolver +
round_robin / pick_first) start cold at --restart-at too. The resolver reads the endpoints once
when it is built (a serializable Get without a deadline), so a client built during the outage has
no address until that read is answered: every call that ends before the registry is back fails, as
nosnap, and a call (waiting up to --call-timeout for an address) succeeds within the 1 s reconnect
back-off (+ 50 ms) of the heal.
Article: the remedy "load the cache at start" — a client that restarts while the registry is
unreachable still has instances to call.`,
		New: func() scenarios.Config {
			return &snapshotAtStart{TrafficParams: scenarios.DefaultTrafficParams(), Real: scenarios.DefaultRealClients(),
				OutageAt: 2 * time.Second, Outage: 6 * time.Second, RestartAt: 4 * time.Second}
		},
	})
}

// snapshotAtStart is the Nacos article's load-cache-at-start remedy.
type snapshotAtStart struct {
	scenarios.TrafficParams
	Real                        scenarios.RealClients
	OutageAt, Outage, RestartAt time.Duration
}

// The callers, in table order.
const (
	callerBefore = "before"
	callerNoSnap = "nosnap"
	callerSnap   = "snap"
)

func (s *snapshotAtStart) Defaults(c *scenarios.Common) { c.Duration = 12 * time.Second }

func (s *snapshotAtStart) Flags(fs *flag.FlagSet) {
	s.TrafficParams.Bind(fs)
	s.Real.Bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when every client link to the registry is blackholed")
	fs.DurationVar(&s.Outage, "outage", s.Outage, "how long the registry stays unreachable")
	fs.DurationVar(&s.RestartAt, "restart-at", s.RestartAt, "when the caller restarts (inside the outage)")
}

func (s *snapshotAtStart) Validate(c scenarios.Common) error {
	if err := s.TrafficParams.Validate(); err != nil {
		return err
	}
	back := s.OutageAt + s.Outage
	switch {
	case s.OutageAt <= 0 || s.Outage <= 0:
		return scenarios.Usagef("--outage-at (%s) and --outage (%s) must be positive", s.OutageAt, s.Outage)
	case s.RestartAt <= s.OutageAt || s.RestartAt >= back:
		return scenarios.Usagef("--restart-at (%s) must fall inside the outage (%s, %s)", s.RestartAt, s.OutageAt, back)
	case c.Duration < back+2*s.Call.Refresh:
		return scenarios.Usagef("--duration (%s) must leave two refresh periods after the registry is back (≥ %s)", c.Duration, back+2*s.Call.Refresh)
	}
	return nil
}

// Run is the plan: before runs until --restart-at, nosnap and snap from
// it; the links are blackholed from --outage-at for --outage.
func (s *snapshotAtStart) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, err
	}
	dir, err := sup.TempDir("sdchaos-snapshot-*", env.Keep)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "instances.json")
	phase := s.Call.Phase(env)
	keep := caller.Policy{OnError: caller.KeepList}
	before := s.Call.Config(callerBefore, phase, keep)
	before.Stop, before.Snapshot, before.Log = s.RestartAt, path, env.Log
	nosnap := s.Call.Config(callerNoSnap, phase, keep)
	nosnap.Start = s.RestartAt
	snap := s.Call.Config(callerSnap, phase, keep)
	snap.Start, snap.Snapshot, snap.LoadSnapshot, snap.Log = s.RestartAt, path, true, env.Log
	return etcd.RunPlan(ctx, env, etcd.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config(), Proxied: true}, etcd.Plan{
		Callers: []caller.Config{before, nosnap, snap},
		Real:    s.Real.Configs(s.Call, s.RestartAt, ""),
		Gateway: s.Call.FailFast,
		Timeline: func(_ context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			return fault.Timeline{{At: s.OutageAt, For: s.Outage, Fault: fault.Blackhole{Proxies: r.Proxies}}}, nil
		},
	})
}
