package nacosarticle

import (
	"context"
	"flag"
	"strconv"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/scenarios"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "registry-jitter",
		Article: "Nacos article",
		Summary: "18 s of packet loss between every client and the registry: which cache policy keeps serving",
		Help: `The Nacos incident: for --jitter (18s) from --jitter-at (2s) every client loses the registry
(its links are blackholed: connections stay open, no byte passes), while the etcd members and all
instances stay up; then --after (7s) of observation. Clients reach each member through a loopback
proxy; the fault switches the proxies. Four callers side by side at --rate req/s each, sharing one
refresh phase drawn from --seed:
  naive           a failed refresh clears the list (as in the incident)
  keep            a failed refresh keeps the list; a successful one replaces it, even when empty
  stale_fallback  as keep, and when the list is empty the balancer uses the last non-empty list
  empty_protect   as keep, but an empty answer is ignored (Nacos namingPushEmptyProtection)
With --ttl shorter than the jitter (e.g. --ttl 10s) the instances cannot renew, their leases expire
inside etcd, and after the jitter the registry answers with an empty list until they re-register.

Bands: naive's first failure comes at its first refresh after the jitter starts, once that
refresh has failed at --refresh-timeout (a blackholed gRPC call waits out its deadline): [refresh-
timeout − 50 ms, refresh + refresh-timeout + one send interval + 50 ms] after the start; from then
until the heal it fails every request (100 %). keep, stale_fallback and empty_protect fail nothing
during the jitter, and the two remedies nothing after it. keep fails after the jitter exactly while
its own refreshes saw the registry empty: rate × that time ± (2 + 2 × rate × 50 ms), and nothing
when they never did. etcd expires a lease when no renewal reached it for its ttl (checked every
500 ms by the leader): the last renewal before the jitter is at most --renew old, so every instance
re-registers when --jitter > --ttl + 1 s, none when --jitter + --renew + 50 ms < --ttl (in between
it depends on each instance's renewal phase and is not judged). Every caller is all ok in the last
second. The timeline is --jitter-at + --jitter + --after unless --duration is given.
Real clients (--real-clients, on by default: etcd's naming resolver + round_robin / pick_first):
the resolver changes addresses only on watch events, and a blackholed watch delivers none, so
they fail nothing during the jitter; after it the watch resumes and delivers what happened: with
no lease expired, nothing (no failure after the jitter); with leases expired (--ttl 10s), the
deletes and then the re-registrations' puts — empty in between: at most rate × (--renew + 1 s
reconnect back-off + 0.5 s) + 2 failures; all ok in the last second.
Article: 18 s of loss; the naive clients failed everything ("No instances available", 503).

Linearizability (issue 12): from time zero (the probe at s0) every member also gets open-loop
key-value traffic through its own client and proxy (3 ops/s each: a put of a unique value, a
linearizable get, a serializable get, on 3 keys, each with a 1 s deadline: during the jitter they
end unknown); at the end each key is read through every member. Porcupine (a register per key,
bounded at 10 s: a check it gives up on is invalid) must find the puts and linearizable gets
linearizable (a put held by the blackhole may still be applied after the heal: unknown puts are
may-have-happened), and no acknowledged put may be missing at the end. The serializable gets of
every member are added and the result reported, not judged (no member is cut off from its
peers). With --out the history is written as registry-jitter.history.html.`,
		Variants: []scenarios.Variant{{Name: "ttl10s", Args: []string{"--ttl", "10s"},
			Why: "leases expire during the jitter: the registry answers empty afterwards, keep fails, the remedies do not"}},
		New: func() scenarios.Config {
			return &registryJitter{TrafficParams: scenarios.DefaultTrafficParams(), Real: scenarios.DefaultRealClients(),
				JitterAt: 2 * time.Second, Jitter: 18 * time.Second, After: 7 * time.Second}
		},
	})
}

// registryJitter is the Nacos article's incident.
type registryJitter struct {
	scenarios.TrafficParams
	Real                    scenarios.RealClients
	JitterAt, Jitter, After time.Duration
}

// jitterCallers are the four callers, in table order.
var jitterCallers = []struct {
	name, label string
	policy      caller.Policy
}{
	{"naive", "naive: clear the list on a failed refresh", caller.Policy{OnError: caller.ClearList}},
	{"keep", "keep: keep on failure, replace on success (even empty)", caller.Policy{OnError: caller.KeepList}},
	{"stale_fallback", "stale_fallback: keep + last non-empty list when empty", caller.Policy{OnError: caller.KeepList, OnEmpty: caller.StaleFallback}},
	{"empty_protect", "empty_protect: keep + ignore an empty answer", caller.Policy{OnError: caller.KeepList, OnEmpty: caller.IgnoreEmpty}},
}

// opRegistrations is the op recorded per instance at the end: Count is how
// many times it registered (1 = never again).
const opRegistrations = "instance/registrations"

func (s *registryJitter) Defaults(c *scenarios.Common) { c.Duration = s.JitterAt + s.Jitter + s.After }

func (s *registryJitter) Flags(fs *flag.FlagSet) {
	s.TrafficParams.Bind(fs)
	s.Real.Bind(fs)
	fs.DurationVar(&s.JitterAt, "jitter-at", s.JitterAt, "when every client loses the registry")
	fs.DurationVar(&s.Jitter, "jitter", s.Jitter, "how long the client links are blackholed")
	fs.DurationVar(&s.After, "after", s.After, "observation after the links heal")
}

func (s *registryJitter) Validate(c scenarios.Common) error {
	if err := s.TrafficParams.Validate(); err != nil {
		return err
	}
	switch {
	case s.JitterAt <= 0 || s.Jitter <= 0 || s.After < 0:
		return scenarios.Usagef("--jitter-at (%s) and --jitter (%s) must be positive, --after (%s) not negative", s.JitterAt, s.Jitter, s.After)
	case c.Duration < s.JitterAt+s.Jitter+time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --jitter-at + --jitter + 1s (%s; raise --after): the last second is judged after the heal",
			c.Duration, s.JitterAt+s.Jitter+time.Second)
	}
	return nil
}

// Run is the plan: the four callers while every client link is blackholed
// from --jitter-at for --jitter; at the end, how often each instance registered.
func (s *registryJitter) Run(ctx context.Context, env *scenarios.Env) (*report.History, error) {
	phase := s.Call.Phase(env)
	var cfgs []caller.Config
	for _, jc := range jitterCallers {
		cfgs = append(cfgs, s.Call.Config(jc.name, phase, jc.policy))
	}
	return rig.RunPlan(ctx, env, rig.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config(), Proxied: true}, rig.Plan{
		Callers: cfgs,
		Real:    s.Real.Configs(s.Call, 0, ""),
		Gateway: s.Call.FailFast,
		Traffic: kvTraffic,
		Timeline: func(r *rig.Etcd) (fault.Timeline, error) {
			return fault.Timeline{{At: s.JitterAt, For: s.Jitter, Fault: fault.Blackhole{Proxies: r.Proxies}}}, nil
		},
		After: recordRegistrations,
	})
}

// recordRegistrations records one op per instance: how many times it registered.
func recordRegistrations(_ context.Context, r *rig.Etcd, rec *report.Recorder) error {
	at := rec.Offset(time.Now())
	for _, in := range r.Group.Instances {
		n := int(in.Stats().Registrations)
		rec.Add(report.Op{Caller: opRegistrations, Scheduled: at, Start: at, End: at, Target: in.ID,
			Count: n, Value: strconv.Itoa(n), Outcome: report.OK})
	}
	return nil
}
