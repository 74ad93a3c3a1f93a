package nacosarticle

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/etcd"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "registry-jitter",
		Article: "Nacos article",
		Summary: "18 s of link loss between every client and the registry (blackholed; packets dropped with --net private): which cache policy keeps serving",
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
timeout − 100 ms, refresh + refresh-timeout + one send interval + 50 ms] after the start (a failure
is dated by its send's schedule, and a send starts up to 100 ms late in a valid run); from then
until the heal it fails every request (100 %). keep, stale_fallback and empty_protect fail nothing
during the jitter, and the two remedies nothing after it. keep fails after the jitter exactly while
its own refreshes saw the registry empty: rate × that time ± (2 + 2 × rate × 100 ms), and nothing
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
peers). With --out the history is written as registry-jitter.history.html.

Real packet loss (issue 14): with --net private the run moves into a private network namespace
(members on 198.18.0.1–3) and the jitter drops --loss of the packets between the proxies and the
members' client ports, both ways (nf_tables; TCP retransmits what is lost, with growing timeouts),
instead of blackholing the proxies; on loopback only --loss 1 (the blackhole) exists. At --loss 1
the bands above hold, except that after the heal a client may wait up to 5 s for a working
connection (gRPC's keepalive, 2 s + 2 s, closes one stuck in the loss and the client redials within
its 1 s back-off; a dial in progress resends its SYN within 2 s): the no-lease-expires rule adds
those 5 s, and --after must be at least 5 s + --refresh + 1 s. Below 1 the registry is reachable
but lossy. Judged, because no rule depends on which calls got through: keep, stale_fallback and
empty_protect fail nothing during the jitter (a refresh that fails keeps the list, one that gets
through lists every instance while no lease expired, and the calls to the instances never cross
the lossy links), the remedies nothing after it, no lease expires when --jitter + --renew + 5 s +
50 ms < --ttl, the real clients fail nothing (no key changes, so the watch has nothing to deliver),
and every caller is all ok in the last second. Reported per policy and compared across the loss
levels (variants loss0.3, loss0.5, loss1.0), not judged: naive's failures and its first one — how
often a refresh fails depends on TCP's retransmission timers (200 ms, then doubling) racing
--refresh-timeout and on gRPC's keepalive dropping connections, which no rule turns into a figure —
and, when some lease does expire under partial loss, keep's and the real clients' failures (their
lists shrink whenever a refresh or the watch gets through).`,
		Variants: append([]scenarios.Variant{{Name: "ttl10s", Args: []string{"--ttl", "10s"},
			Why: "leases expire during the jitter: the registry answers empty afterwards, keep fails, the remedies do not"}},
			lossVariants()...),
		New: func() scenarios.Config {
			return &registryJitter{TrafficParams: scenarios.DefaultTrafficParams(), Real: scenarios.DefaultRealClients(),
				JitterAt: 2 * time.Second, Jitter: 18 * time.Second, After: 7 * time.Second, Loss: 1}
		},
	})
}

// registryJitter is the Nacos article's incident.
type registryJitter struct {
	scenarios.TrafficParams
	Real                    scenarios.RealClients
	JitterAt, Jitter, After time.Duration
	// Loss is the share of client packets dropped during the jitter (1:
	// every one; below 1 only with --net private).
	Loss float64
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
	fs.DurationVar(&s.Jitter, "jitter", s.Jitter, "how long the client links are blackholed (with --net private: lose --loss of their packets)")
	fs.DurationVar(&s.After, "after", s.After, "observation after the links heal")
	fs.Float64Var(&s.Loss, "loss", s.Loss, "share of the packets between the clients and the members dropped during the jitter, in (0, 1]; "+
		"below 1 needs --net private (on loopback the jitter is the proxies' blackhole: a loss of 1)")
}

func (s *registryJitter) Validate(c scenarios.Common) error {
	if err := s.TrafficParams.Validate(); err != nil {
		return err
	}
	switch {
	case s.JitterAt <= 0 || s.Jitter <= 0 || s.After < 0:
		return scenarios.Usagef("--jitter-at (%s) and --jitter (%s) must be positive, --after (%s) not negative", s.JitterAt, s.Jitter, s.After)
	case !(s.Loss > 0 && s.Loss <= 1):
		return scenarios.Usagef("--loss (%g) must be within (0, 1]", s.Loss)
	case s.Loss < 1 && c.Net != rig.Private:
		return scenarios.Usagef("--loss %g needs --net private: on the host's loopback the jitter is the proxies' blackhole, a loss of 1", s.Loss)
	case c.Net == rig.Private && s.After < reconnectAllowance+s.Call.Refresh+time.Second:
		return scenarios.Usagef("--after (%s) must be at least %s with --net private: after a packet drop a client may take %s to reconnect, then --refresh (%s), then the judged last second",
			s.After, reconnectAllowance+s.Call.Refresh+time.Second, reconnectAllowance, s.Call.Refresh)
	case c.Duration < s.JitterAt+s.Jitter+time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --jitter-at + --jitter + 1s (%s; raise --after): the last second is judged after the heal",
			c.Duration, s.JitterAt+s.Jitter+time.Second)
	}
	return nil
}

// Run is the plan: the four callers while every client link is blackholed
// (with --net private: loses --loss of its packets) from --jitter-at for
// --jitter; at the end, how often each instance registered.
func (s *registryJitter) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	phase := s.Call.Phase(env)
	var cfgs []caller.Config
	for _, jc := range jitterCallers {
		cfgs = append(cfgs, s.Call.Config(jc.name, phase, jc.policy))
	}
	return etcd.RunPlan(ctx, env, etcd.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config(), Proxied: true}, etcd.Plan{
		Callers: cfgs,
		Real:    s.Real.Configs(s.Call, 0, ""),
		Gateway: s.Call.FailFast,
		KV:      &etcd.KVPlan{Timeout: kvOpTimeout, FinalWithin: finalReadsWithin},
		Timeline: func(_ context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			f, err := s.jitterFault(env, r)
			return fault.Timeline{{At: s.JitterAt, For: s.Jitter, Fault: f}}, err
		},
		After: recordRegistrations,
	})
}

// jitterFault is the jitter: the proxies' blackhole on the host's
// loopback; in the private namespace, a drop of --loss of the packets
// between the clients (through the proxies) and the members' client ports,
// both ways.
func (s *registryJitter) jitterFault(env *scenarios.Env, r *etcd.Etcd) (fault.Fault, error) {
	if env.Net != rig.Private {
		return fault.Blackhole{Proxies: r.Proxies}, nil
	}
	f, err := env.Filter()
	if err != nil {
		return nil, fmt.Errorf("the jitter's packet filter: %w", err)
	}
	return &etcd.DropClientPackets{Filter: f, Nodes: r.Cluster.Nodes(), Loss: s.Loss, Dir: fault.BothWays}, nil
}

// lossVariants are the loss sweep in the private namespace.
func lossVariants() []scenarios.Variant {
	v := func(loss, why string) scenarios.Variant {
		return scenarios.Variant{Name: "loss" + loss, Args: []string{"--net", "private", "--loss", loss}, Why: why}
	}
	return []scenarios.Variant{
		v("0.3", "30 % of the client packets lost (private network namespace): the registry is reachable but lossy; naive fails part of the time, the other policies nothing"),
		v("0.5", "50 % of the client packets lost: naive fails more often, the other policies still nothing"),
		v("1.0", "every client packet dropped instead of the proxies' blackhole: the same verdicts as the default run"),
	}
}

// recordRegistrations records one op per instance: how many times it registered.
func recordRegistrations(_ context.Context, r *etcd.Etcd, rec *history.Recorder) error {
	at := rec.Offset(time.Now())
	for _, in := range r.Group.Instances {
		n := int(in.Stats().Registrations)
		rec.Add(history.Op{Caller: opRegistrations, Kind: history.OpSample, Scheduled: at, Start: at, End: at, Target: in.ID,
			Count: n, Value: strconv.Itoa(n), Outcome: history.OK})
	}
	return nil
}
