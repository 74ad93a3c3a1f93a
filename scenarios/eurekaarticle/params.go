package eurekaarticle

import (
	"flag"
	"time"

	"sdchaos/eureka"
	"sdchaos/rig"
	"sdchaos/scenarios"
)

// eurekaParams are the model flags every Eureka scenario has.
type eurekaParams struct {
	Scale         float64
	LeaseBug      bool
	ResponseCache bool
	PeerTimeout   time.Duration
	Workers       int
}

// defaultEurekaParams returns Eureka's defaults at the given time scale, with 50 workers.
func defaultEurekaParams(scale float64) eurekaParams {
	d := eureka.DefaultConfig()
	return eurekaParams{Scale: scale, LeaseBug: d.LeaseBug, ResponseCache: d.ResponseCache, PeerTimeout: d.PeerTimeout, Workers: 50}
}

func (p *eurekaParams) bind(fs *flag.FlagSet) {
	fs.Float64Var(&p.Scale, "time-scale", p.Scale, "model seconds per real second (every Eureka duration, --duration included, is model time)")
	fs.BoolVar(&p.LeaseBug, "lease-bug", p.LeaseBug, "reproduce Lease.renew()'s double duration (false: a renewed lease expires lease-duration after its last renewal)")
	fs.BoolVar(&p.ResponseCache, "response-cache", p.ResponseCache, "serve fetches from the read-only response cache refreshed every 30 s")
	fs.DurationVar(&p.PeerTimeout, "peer-timeout", p.PeerTimeout, "timeout of a replication request between servers (model time; the article recommends 1s)")
	fs.IntVar(&p.Workers, "workers", p.Workers, "number of worker instances per cluster")
}

func (p eurekaParams) validate() error {
	switch {
	case p.Scale < 1 || p.Scale > 100:
		return scenarios.Usagef("--time-scale (%g) must be within 1–100", p.Scale)
	case p.Workers < 0 || p.Workers > 200:
		return scenarios.Usagef("--workers (%d) must be within 0–200", p.Workers)
	}
	if err := p.config().Validate(); err != nil {
		return scenarios.Usagef("%v (--peer-timeout %s)", err, p.PeerTimeout)
	}
	return nil
}

// backend returns the Eureka back-end the run uses.
func (p eurekaParams) backend() rig.EurekaBackend { return rig.ModelBackend{} }

// config returns the model config with the flags applied.
func (p eurekaParams) config() eureka.Config {
	c := eureka.DefaultConfig()
	c.LeaseBug, c.ResponseCache, c.PeerTimeout = p.LeaseBug, p.ResponseCache, p.PeerTimeout
	return c
}
