package scenarios

import (
	"flag"
	"time"

	"sdchaos/caller"
	"sdchaos/fakeservice"
)

// serviceParams are the flags of the fake service instances.
type serviceParams struct {
	Instances  int
	TTL, Renew time.Duration
}

func defaultServiceParams() serviceParams {
	d := fakeservice.DefaultConfig()
	return serviceParams{Instances: 3, TTL: d.TTL, Renew: d.Renew}
}

func (p *serviceParams) bind(fs *flag.FlagSet) {
	fs.IntVar(&p.Instances, "instances", p.Instances, "number of fake service instances")
	fs.DurationVar(&p.TTL, "ttl", p.TTL, "lease ttl of each instance (whole seconds, ≥ 2s)")
	fs.DurationVar(&p.Renew, "renew", p.Renew, "lease renewal interval (KeepAliveOnce on a ticker)")
}

func (p serviceParams) config() fakeservice.Config {
	c := fakeservice.DefaultConfig()
	c.TTL, c.Renew = p.TTL, p.Renew
	return c
}

func (p serviceParams) validate() error {
	if p.Instances < 1 || p.Instances > 100 {
		return Usagef("--instances (%d) must be within 1–100", p.Instances)
	}
	if err := p.config().Validate(); err != nil {
		return Usagef("%v (--ttl %s, --renew %s)", err, p.TTL, p.Renew)
	}
	return nil
}

// callerParams are the flags of the callers.
type callerParams struct {
	Rate                    float64
	Refresh, RefreshTimeout time.Duration
	CallTimeout             time.Duration
}

func defaultCallerParams() callerParams {
	d := caller.DefaultConfig("")
	return callerParams{Rate: d.Rate, Refresh: d.Refresh, RefreshTimeout: d.RefreshTimeout, CallTimeout: d.CallTimeout}
}

func (p *callerParams) bind(fs *flag.FlagSet) {
	fs.Float64Var(&p.Rate, "rate", p.Rate, "requests per second of each caller (open loop, evenly spaced)")
	fs.DurationVar(&p.Refresh, "refresh", p.Refresh, "instance-list refresh interval of each caller")
	fs.DurationVar(&p.RefreshTimeout, "refresh-timeout", p.RefreshTimeout, "deadline of one refresh")
	fs.DurationVar(&p.CallTimeout, "call-timeout", p.CallTimeout, "deadline of one request to an instance")
}

func (p callerParams) validate() error {
	switch {
	case p.Rate <= 0 || p.Rate > 5000:
		return Usagef("--rate (%g) must be within (0, 5000]", p.Rate)
	case p.RefreshTimeout > p.Refresh:
		return Usagef("--refresh-timeout (%s) must not exceed --refresh (%s)", p.RefreshTimeout, p.Refresh)
	}
	if err := p.config("x", 0, caller.Policy{}).Validate(); err != nil {
		return Usagef("%v", err)
	}
	return nil
}

// config returns a caller config with the given name, refresh phase and policy.
func (p callerParams) config(name string, phase time.Duration, pol caller.Policy) caller.Config {
	return caller.Config{Name: name, Rate: p.Rate, Refresh: p.Refresh, RefreshTimeout: p.RefreshTimeout,
		RefreshPhase: phase, CallTimeout: p.CallTimeout, Policy: pol}
}

// phase draws the callers' shared refresh phase from the run's seeded source.
func (p callerParams) phase(env *Env) time.Duration {
	return time.Duration(env.Rand.Int64N(int64(p.Refresh)))
}

// trafficParams are the flags of the experiments with instances and callers.
type trafficParams struct {
	svc  serviceParams
	call callerParams
}

func defaultTrafficParams() trafficParams {
	return trafficParams{svc: defaultServiceParams(), call: defaultCallerParams()}
}

func (p *trafficParams) bind(fs *flag.FlagSet) {
	p.svc.bind(fs)
	p.call.bind(fs)
}

func (p trafficParams) validate() error {
	if err := p.svc.validate(); err != nil {
		return err
	}
	return p.call.validate()
}
