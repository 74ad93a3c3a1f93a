package scenarios

import (
	"flag"
	"os/exec"
	"strings"
	"time"

	"sdchaos/caller"
	"sdchaos/fakeservice"
	"sdchaos/report"
	"sdchaos/rig"
)

// ServiceParams are the flags of the fake service instances.
type ServiceParams struct {
	Instances  int
	TTL, Renew time.Duration
}

// DefaultServiceParams returns the article's instances: 3, ttl 20 s, renewed every 2 s.
func DefaultServiceParams() ServiceParams {
	d := fakeservice.DefaultConfig()
	return ServiceParams{Instances: 3, TTL: d.TTL, Renew: d.Renew}
}

// Bind binds --instances, --ttl and --renew.
func (p *ServiceParams) Bind(fs *flag.FlagSet) {
	fs.IntVar(&p.Instances, "instances", p.Instances, "number of fake service instances")
	fs.DurationVar(&p.TTL, "ttl", p.TTL, "lease ttl of each instance (whole seconds, ≥ 2s)")
	fs.DurationVar(&p.Renew, "renew", p.Renew, "lease renewal interval (KeepAliveOnce on a ticker)")
}

// Config returns the instances' configuration.
func (p ServiceParams) Config() fakeservice.Config {
	c := fakeservice.DefaultConfig()
	c.TTL, c.Renew = p.TTL, p.Renew
	return c
}

// Validate quotes an impossible value.
func (p ServiceParams) Validate() error {
	if p.Instances < 1 || p.Instances > 100 {
		return Usagef("--instances (%d) must be within 1–100", p.Instances)
	}
	if err := p.Config().Validate(); err != nil {
		return Usagef("%v (--ttl %s, --renew %s)", err, p.TTL, p.Renew)
	}
	return nil
}

// BindRate binds --rate to p: calls (or tasks) per second, open loop.
func BindRate(fs *flag.FlagSet, p *float64, what string) {
	fs.Float64Var(p, "rate", *p, what+" per second (open loop, evenly spaced)")
}

// ValidateRate requires 0 < rate ≤ most.
func ValidateRate(rate, most float64) error {
	if rate <= 0 || rate > most {
		return Usagef("--rate (%g) must be within (0, %g]", rate, most)
	}
	return nil
}

// CallerParams are the flags of the callers.
type CallerParams struct {
	Rate                    float64
	Refresh, RefreshTimeout time.Duration
	CallTimeout             time.Duration
	// FailFast makes a refresh fail on the first refused connection (the
	// etcd JSON gateway over HTTP, trying the members in turn, as the
	// article's client did) instead of waiting out --refresh-timeout as the
	// gRPC client does while it retries.
	FailFast bool
}

// DefaultCallerParams returns the article's caller: 40 req/s, refresh every 1 s (500 ms deadline).
func DefaultCallerParams() CallerParams {
	d := caller.DefaultConfig("")
	return CallerParams{Rate: d.Rate, Refresh: d.Refresh, RefreshTimeout: d.RefreshTimeout, CallTimeout: d.CallTimeout}
}

// Bind binds --rate, --refresh, --refresh-timeout, --call-timeout and --refresh-fail-fast.
func (p *CallerParams) Bind(fs *flag.FlagSet) {
	BindRate(fs, &p.Rate, "requests of each caller")
	fs.DurationVar(&p.Refresh, "refresh", p.Refresh, "instance-list refresh interval of each caller")
	fs.DurationVar(&p.RefreshTimeout, "refresh-timeout", p.RefreshTimeout, "deadline of one refresh")
	fs.DurationVar(&p.CallTimeout, "call-timeout", p.CallTimeout, "deadline of one request to an instance")
	fs.BoolVar(&p.FailFast, "refresh-fail-fast", p.FailFast,
		"refresh through etcd's JSON gateway over HTTP, failing on the first refused connection (the article's client), not gRPC")
}

// Validate quotes an impossible value.
func (p CallerParams) Validate() error {
	if err := ValidateRate(p.Rate, 5000); err != nil {
		return err
	}
	if p.RefreshTimeout > p.Refresh {
		return Usagef("--refresh-timeout (%s) must not exceed --refresh (%s)", p.RefreshTimeout, p.Refresh)
	}
	if err := p.Config("x", 0, caller.Policy{}).Validate(); err != nil {
		return Usagef("%v", err)
	}
	return nil
}

// Config returns a caller config with the given name, refresh phase and policy.
func (p CallerParams) Config(name string, phase time.Duration, pol caller.Policy) caller.Config {
	return caller.Config{Name: name, Rate: p.Rate, Refresh: p.Refresh, RefreshTimeout: p.RefreshTimeout,
		RefreshPhase: phase, CallTimeout: p.CallTimeout, Policy: pol}
}

// Phase draws the callers' shared refresh phase from the run's seeded source.
func (p CallerParams) Phase(env *Env) time.Duration {
	return time.Duration(env.Rand.Int64N(int64(p.Refresh)))
}

// TrafficParams are the flags of the experiments with instances and callers.
type TrafficParams struct {
	Svc  ServiceParams
	Call CallerParams
}

// DefaultTrafficParams returns the article's instances and callers.
func DefaultTrafficParams() TrafficParams {
	return TrafficParams{Svc: DefaultServiceParams(), Call: DefaultCallerParams()}
}

// Bind binds the instance and caller flags.
func (p *TrafficParams) Bind(fs *flag.FlagSet) {
	p.Svc.Bind(fs)
	p.Call.Bind(fs)
}

// Validate validates the instance and caller flags.
func (p TrafficParams) Validate() error {
	if err := p.Svc.Validate(); err != nil {
		return err
	}
	return p.Call.Validate()
}

// RealClients are the flags of the real clients a traffic scenario runs
// beside its policy callers: etcd's gRPC naming resolver feeding gRPC's
// round_robin and pick_first balancers, calling the instances' gRPC health
// service at the callers' rate.
type RealClients struct {
	On bool
}

// DefaultRealClients turns the real clients on.
func DefaultRealClients() RealClients { return RealClients{On: true} }

// Bind binds --real-clients.
func (p *RealClients) Bind(fs *flag.FlagSet) {
	fs.BoolVar(&p.On, "real-clients", p.On, "also run real gRPC clients (etcd naming resolver + round_robin / pick_first) beside the policies")
}

// Real client names, in table order.
const (
	RealRoundRobin = "grpc_rr"
	RealPickFirst  = "grpc_pf"
)

// realBalancers are the real clients' names, in table order, and their balancers.
var realBalancers = []struct{ name, balancer string }{{RealRoundRobin, "round_robin"}, {RealPickFirst, "pick_first"}}

// Names returns the real clients' names, in table order (none when off).
func (p RealClients) Names() []string {
	if !p.On {
		return nil
	}
	out := make([]string, len(realBalancers))
	for i, rb := range realBalancers {
		out[i] = rb.name
	}
	return out
}

// Rows returns the real clients' table rows (none when off), labelled
// "<what>: etcd resolver + <balancer>" ("real client: etcd resolver + round_robin").
func (p RealClients) Rows(what string) []report.Row {
	if !p.On {
		return nil
	}
	rows := make([]report.Row, len(realBalancers))
	for i, rb := range realBalancers {
		rows[i] = report.Row{Key: rb.name, Label: what + ": etcd resolver + " + rb.balancer}
	}
	return rows
}

// Configs returns the real clients at the callers' rate and call timeout,
// starting at start (0: primed before time zero); suffix is appended to
// their names.
func (p RealClients) Configs(call CallerParams, start time.Duration, suffix string) []caller.GRPCConfig {
	if !p.On {
		return nil
	}
	return []caller.GRPCConfig{
		{Name: RealRoundRobin + suffix, Rate: call.Rate, Balancer: caller.RoundRobin, CallTimeout: call.CallTimeout, Start: start},
		{Name: RealPickFirst + suffix, Rate: call.Rate, Balancer: caller.PickFirst, CallTimeout: call.CallTimeout, Start: start},
	}
}

// ClientParams is the --client flag: a user's discovery client run beside
// the policies ("exec:CMD ARGS"; see rig's line protocol and the README).
type ClientParams struct {
	Exec string
}

// ClientName labels the user's client in tables and metrics.
const ClientName = "client"

// Bind binds --client.
func (p *ClientParams) Bind(fs *flag.FlagSet) {
	fs.StringVar(&p.Exec, "client", p.Exec, "also run your own client: 'exec:CMD ARGS' (one JSON line per call on stdout; see the README)")
}

// Argv returns the client's program and arguments (nil when none).
func (p ClientParams) Argv() []string {
	return strings.Fields(strings.TrimPrefix(p.Exec, "exec:"))
}

// Validate requires "exec:" and a program that can be found.
func (p ClientParams) Validate() error {
	if p.Exec == "" {
		return nil
	}
	if !strings.HasPrefix(p.Exec, "exec:") || len(p.Argv()) == 0 {
		return Usagef("--client %q: want 'exec:CMD ARGS'", p.Exec)
	}
	if _, err := exec.LookPath(p.Argv()[0]); err != nil {
		return Usagef("--client: %v", err)
	}
	return nil
}

// Config returns the client's configuration at the callers' rate (nil when none).
func (p ClientParams) Config(call CallerParams) *rig.ExecConfig {
	if p.Exec == "" {
		return nil
	}
	return &rig.ExecConfig{Name: ClientName, Argv: p.Argv(), Rate: call.Rate, CallTimeout: call.CallTimeout}
}
