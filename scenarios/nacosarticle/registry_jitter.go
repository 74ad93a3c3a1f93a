//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "registry-jitter",
		Article: "Nacos article",
		Summary: "18 s of packet loss between every client and the registry: which cache policy keeps serving",
		Help: `The Nacos incident: for --jitter (18s) from --jitter-at (2s) every client loses the registry
(its links are blackholed: connections stay open, no byte passes), while the etcd members and all
instances stay up; then --after (7s) of observation. Clients reach each member through a loopback
proxy; the faults switch the proxies. Four callers side by side at --rate req/s each, sharing one
refresh phase drawn from --seed:
  naive           a failed refresh clears the list (as in the incident)
  keep            a failed refresh keeps the list; a successful one replaces it, even when empty
  stale_fallback  as keep, and when the list is empty the balancer uses the last non-empty list
  empty_protect   as keep, but an empty answer is ignored (Nacos push-empty protection)
With --ttl shorter than the jitter (e.g. --ttl 10s) the instances cannot renew, their leases expire
inside etcd, and after the jitter the registry answers with an empty list until they re-register.

Reproduced when: naive fails every request from one refresh period (+ refresh timeout) after the
jitter starts until it ends; keep, stale_fallback and empty_protect fail nothing during the jitter;
stale_fallback and empty_protect fail nothing after it either; keep fails after the jitter exactly
when its refreshes saw the registry empty (measured), and not otherwise; every caller is all ok in
the last second (clients recover by themselves). The timeline is --jitter-at + --jitter + --after
unless --duration is given.`,
		New: func() Config {
			return &registryJitter{trafficParams: defaultTrafficParams(),
				JitterAt: 2 * time.Second, Jitter: 18 * time.Second, After: 7 * time.Second}
		},
	})
}

// registryJitter is the Nacos article's incident.
type registryJitter struct {
	trafficParams
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

func (s *registryJitter) Defaults(c *Common) { c.Duration = s.JitterAt + s.Jitter + s.After }

func (s *registryJitter) Flags(fs *flag.FlagSet) {
	s.trafficParams.bind(fs)
	fs.DurationVar(&s.JitterAt, "jitter-at", s.JitterAt, "when every client loses the registry")
	fs.DurationVar(&s.Jitter, "jitter", s.Jitter, "how long the client links are blackholed")
	fs.DurationVar(&s.After, "after", s.After, "observation after the links heal")
}

func (s *registryJitter) Validate(c Common) error {
	if err := s.trafficParams.validate(); err != nil {
		return err
	}
	switch {
	case s.JitterAt <= 0 || s.Jitter <= 0 || s.After < 0:
		return Usagef("--jitter-at (%s) and --jitter (%s) must be positive, --after (%s) not negative", s.JitterAt, s.Jitter, s.After)
	case c.Duration < s.JitterAt+s.Jitter:
		return Usagef("--duration (%s) must be at least --jitter-at + --jitter (%s)", c.Duration, s.JitterAt+s.Jitter)
	}
	return nil
}

func (s *registryJitter) Run(ctx context.Context, env *Env) (*report.Result, error) {
	phase := s.call.phase(env)
	var cfgs []caller.Config
	for _, jc := range jitterCallers {
		cfgs = append(cfgs, s.call.config(jc.name, phase, jc.policy))
	}
	reregistered := 0
	rec, err := runTrafficPlan(ctx, env, s.svc, trafficPlan{
		callers: cfgs,
		rig:     rigOptions{proxied: true},
		timeline: func(r *rig) (fault.Timeline, error) {
			return fault.Timeline{{At: s.JitterAt, For: s.Jitter, Fault: fault.Blackhole{Proxies: r.proxies}}}, nil
		},
		after: func(r *rig) {
			for _, in := range r.group.Instances {
				if in.Stats().Registrations > 1 {
					reregistered++
				}
			}
		},
	})
	if err != nil {
		return nil, err
	}
	return s.judge(rec.Ops(), rec.Marks(), env.Duration, reregistered), nil
}
