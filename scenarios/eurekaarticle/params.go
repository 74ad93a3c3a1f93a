package eurekaarticle

import (
	"flag"
	"fmt"
	"time"

	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// eurekaParams are the flags every Eureka scenario has.
type eurekaParams struct {
	// Backend is --eureka: the Go model, or real Netflix Eureka.
	Backend       backendFlag
	Scale         float64
	LeaseBug      bool
	ResponseCache bool
	PeerTimeout   time.Duration
	Workers       int
	// clock starts real servers under libfaketime (clock-skew steps one).
	clock bool
	// maxScale, when set, caps the time scale real Eureka is given by
	// default (a scenario whose timeline needs the real renewals window to
	// stay short in model time).
	maxScale float64
}

// backendFlag is --eureka: model or real.
type backendFlag string

// The back-ends.
const (
	backendModel backendFlag = "model"
	backendReal  backendFlag = "real"
)

// String returns the flag's value.
func (b *backendFlag) String() string { return string(*b) }

// Set parses model or real.
func (b *backendFlag) Set(v string) error {
	switch backendFlag(v) {
	case backendModel, backendReal:
		*b = backendFlag(v)
		return nil
	}
	return fmt.Errorf("want model or real, got %q", v)
}

// defaultEurekaParams returns Eureka's defaults at the given time scale, with 50 workers.
func defaultEurekaParams(scale float64) eurekaParams {
	d := eurekamodel.DefaultConfig()
	return eurekaParams{Backend: backendModel, Scale: scale, LeaseBug: d.LeaseBug, ResponseCache: d.ResponseCache, PeerTimeout: d.PeerTimeout, Workers: 50}
}

func (p *eurekaParams) bind(fs *flag.FlagSet) {
	fs.Var(&p.Backend, "eureka", "what runs the servers and the schedulers' discovery clients: model (the Go model, eureka/) or real "+
		"(Netflix Eureka servers from Spring Cloud Netflix and the Java DiscoveryClient, JVMs built by Maven on first use)")
	fs.Float64Var(&p.Scale, "time-scale", p.Scale, "model seconds per real second (every Eureka duration, --duration included, is model time); "+
		"with --eureka real the default is the largest scale ≤ the model's that keeps every interval the server takes in whole seconds whole")
	fs.BoolVar(&p.LeaseBug, "lease-bug", p.LeaseBug, "reproduce Lease.renew()'s double duration (false: a renewed lease expires lease-duration after its last renewal)")
	fs.BoolVar(&p.ResponseCache, "response-cache", p.ResponseCache, "serve fetches from the read-only response cache refreshed every 30 s")
	fs.DurationVar(&p.PeerTimeout, "peer-timeout", p.PeerTimeout, "timeout of a replication request between servers (model time; the article recommends 1s)")
	fs.IntVar(&p.Workers, "workers", p.Workers, "number of worker instances per cluster")
}

// validate checks the flags; on real Eureka it also chooses or checks the
// time scale, with the scenario's own intervals that the real client takes
// in whole seconds (its fetch intervals) in whole.
func (p *eurekaParams) validate(c scenarios.Common, whole ...time.Duration) error {
	if p.Backend == backendReal {
		if err := p.realScale(c, whole); err != nil {
			return err
		}
	}
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
func (p eurekaParams) backend() eureka.EurekaBackend {
	if p.Backend == backendReal {
		return eureka.RealBackend{ClockControl: p.clock}
	}
	return eureka.ModelBackend{}
}

// config returns the run's configuration in model time with the flags
// applied. On real Eureka it also holds what the server's source fixes in
// code, converted to model time at the run's scale (the 60 s renewals
// window of MeasuredRate, the 500 ms replication batching and the peer
// retry sleeps, the lease's double duration): the judges' bands follow
// them, so a scaled real run is judged by the rules it really runs under.
func (p eurekaParams) config() eurekamodel.Config {
	c := eurekamodel.DefaultConfig()
	c.LeaseBug, c.ResponseCache, c.PeerTimeout = p.LeaseBug, p.ResponseCache, p.PeerTimeout
	if p.Backend == backendReal {
		up := func(d time.Duration) time.Duration { return time.Duration(float64(d) * p.Scale) }
		c.RenewsBucket, c.BatchDelay = up(time.Minute), up(500*time.Millisecond)
		c.NetworkRetry, c.CongestionRetry = up(100*time.Millisecond), up(time.Second)
		c.LeaseBug = true
	}
	return c
}

// realScales are the time scales tried, largest first, for a real run
// whose --time-scale was not given.
var realScales = []float64{30, 15, 10, 6, 5, 3, 2, 1}

// realScale checks (and, when --time-scale was not given, chooses) a time
// scale real Eureka can run at: every interval it takes in whole seconds
// (renewal, lease, fetch, expected renewal) must stay whole. It refuses
// what the real server cannot do.
func (p *eurekaParams) realScale(c scenarios.Common, whole []time.Duration) error {
	if !p.LeaseBug {
		return scenarios.Usagef("--lease-bug=false: real Eureka's Lease.renew() always stores now + duration (Netflix/eureka#531: won't fix); only the model can run the intended lease")
	}
	if c.Explicit["time-scale"] {
		if err := p.runsAt(p.Scale, whole); err != nil {
			return scenarios.Usagef("--eureka real --time-scale %g: %v", p.Scale, err)
		}
		return nil
	}
	for _, k := range realScales {
		if k <= p.Scale && (p.maxScale == 0 || k <= p.maxScale) && p.runsAt(k, whole) == nil {
			p.Scale = k
			return nil
		}
	}
	return scenarios.Usagef("--eureka real: no time scale ≤ %g keeps the real server's whole-second intervals whole; give --time-scale", p.Scale)
}

// runsAt reports whether real Eureka can run these flags at scale k.
func (p eurekaParams) runsAt(k float64, whole []time.Duration) error {
	q := p
	q.Scale = k
	scale := eurekamodel.NewScale(time.Now(), k)
	if _, err := eureka.RealProps(q.config(), scale); err != nil {
		return err
	}
	for _, d := range whole {
		if r := scale.Real(d); r%time.Second != 0 || r <= 0 {
			return fmt.Errorf("a fetch interval of %s is %s of real time: the Java client takes whole seconds", d, r)
		}
	}
	return nil
}

// requestSlack is the allowance for one HTTP request between servers or to
// a server, in model time. A request takes real time whatever the scale,
// the model's Go processes' as much as the real JVMs', so it is a real
// allowance times the scale: one late wake-up (rig.SchedSlack) for the
// model (250 ms of model time at its default scale 5), 250 ms for a
// request between real JVMs.
func (p eurekaParams) requestSlack() time.Duration {
	real := rig.SchedSlack
	if p.Backend == backendReal {
		real = 250 * time.Millisecond
	}
	return time.Duration(float64(real) * p.Scale)
}

// requestSlackWhy says where requestSlack comes from.
func (p eurekaParams) requestSlackWhy() string {
	if p.Backend == backendReal {
		return fmt.Sprintf("250 ms of real time between real JVMs, ×%g in model time", p.Scale)
	}
	return fmt.Sprintf("one late wake-up, %s of real time between the model's processes, ×%g in model time", rig.SchedSlack, p.Scale)
}

// who names what ran the servers, for conclusions.
func (p eurekaParams) who() string {
	if p.Backend == backendReal {
		return fmt.Sprintf("real Netflix Eureka (at --time-scale %g)", p.Scale)
	}
	return "the model, following the source,"
}
