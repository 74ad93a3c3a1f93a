package nacosincident

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/ports"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/nacos"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "nacos-incident",
		Article: "Nacos article",
		Summary: "the incident on a real Nacos 3.1 server with real Spring, Java and Go clients: 18 s of loss, or an empty registry",
		Help:    incidentHelp + "\n\n" + restartHelp,
		Variants: []scenarios.Variant{
			{Name: "loss40s", Args: []string{"--loss", "40s"},
				Why: "a loss longer than the connection ejector's 20 s + 5 s probe (+ its 3 s period): the server removes every instance, as the article's registry did"},
			{Name: "empty", Args: []string{"--fault", "empty", "--loss", "40s"},
				Why: "every instance deregistered for 40 s while alive: Spring's 'No instances available' once LoadBalancer's 35 s cache expires; the fixes fail nothing"},
			{Name: "restart", Args: []string{"--loss", "40s", "--restart-at", "7s"},
				Why: "six callers killed 2 s into a 40 s loss and started again on their own disk caches: the article's first fix (naming-load-cache-at-start) serves, the defaults fail until the heal"},
		},
		Ground: scenarios.LoopbackServers, // no etcd: the real Nacos server and its clients stay on 127.0.0.1 behind the harness's link proxies
		New: func() scenarios.Config {
			return &nacosIncident{Fault: faultBlackhole, Loss: 18 * time.Second, FaultAt: 5 * time.Second, After: 20 * time.Second,
				Instances: 3, Rate: 40}
		},
	})
}

// The incident's faults (--fault).
const (
	// faultBlackhole holds every byte of every client link (instances and
	// callers) to the server: the article's packet loss.
	faultBlackhole = "blackhole"
	// faultEmpty deregisters every instance (their endpoints stay up) and
	// registers them again at the heal: the registry answers an empty list
	// while every instance is alive.
	faultEmpty = "empty"
)

// nacosIncident is the Nacos article's incident on the real Nacos server
// and real clients (package nacosreal): every client link blackholed for
// --loss, or every instance deregistered while alive.
type nacosIncident struct {
	// Fault is faultBlackhole or faultEmpty.
	Fault string
	// Loss is how long the fault lasts; FaultAt when it starts (from the
	// callers' first call); After how long the run goes on after the heal.
	Loss, FaultAt, After time.Duration
	// Instances is how many instances register the service; Rate every
	// caller's calls per second.
	Instances int
	Rate      float64
	// RestartAt, when positive, is when (from time zero, inside the
	// blackhole) the restarted callers are killed and started again on
	// their own disk caches; 0 restarts nothing.
	RestartAt time.Duration
}

// The plan's fixed settings.
const (
	// minAfter is the shortest observation after the heal: a client
	// reconnects within its reconnect loop's sleep (at most 5 s) plus one
	// 3 s attempt, then its redo registers and subscribes again and the
	// server pushes 500 ms later.
	minAfter = 10 * time.Second
	// incidentPortSpan is how many ports above --port-base a run uses:
	// JRaft at the base, the server's main port at +1000, its gRPC ports
	// at +2000 and +2001, the clients' endpoints and link proxies from
	// +1002 (gRPC proxies 1000 above).
	incidentPortSpan = 2100
	// incidentSample is how often the server's list is read through its
	// admin API: often enough for bands a second wide, seldom enough to
	// add little load to the server (nacosreal's default is 20 ms).
	incidentSample = 50 * time.Millisecond
	// serverOffset puts the server's main port 1000 above --port-base, so
	// that JRaft (main − 1000) listens at the base and nothing below it.
	serverOffset = -nacos.RaftOffset
)

// Defaults derives the timeline from the flags: --fault-at + --loss + --after.
func (s *nacosIncident) Defaults(c *scenarios.Common) { c.Duration = s.FaultAt + s.Loss + s.After }

// Flags binds the scenario's flags.
func (s *nacosIncident) Flags(fs *flag.FlagSet) {
	fs.StringVar(&s.Fault, "fault", s.Fault, "the incident's fault: blackhole (every client link holds its bytes: the article's packet loss) | "+
		"empty (every instance deregistered while its endpoint stays up)")
	fs.DurationVar(&s.Loss, "loss", s.Loss, "how long the fault lasts (the article: 18 s of packet loss)")
	fs.DurationVar(&s.FaultAt, "fault-at", s.FaultAt, "when the fault starts, from the callers' first call")
	fs.DurationVar(&s.After, "after", s.After, "observation after the heal (the timeline is --fault-at + --loss + --after unless --duration is given)")
	fs.IntVar(&s.Instances, "instances", s.Instances, "instances registering the service (Go, nacos-sdk-go, each with its own link)")
	fs.Float64Var(&s.Rate, "rate", s.Rate, "calls per second of each caller, open loop")
	fs.DurationVar(&s.RestartAt, "restart-at", s.RestartAt, "when (from time zero, inside the blackhole) six callers are killed and started again on their own disk "+
		"caches, two new ones among them (spring-cache, plain-cache); 0: no restart")
}

// Validate reports a bad combination of values, quoting them.
func (s *nacosIncident) Validate(c scenarios.Common) error {
	switch {
	case s.Fault != faultBlackhole && s.Fault != faultEmpty:
		return scenarios.Usagef("--fault %q: want %s or %s", s.Fault, faultBlackhole, faultEmpty)
	case s.Loss <= 0 || s.Loss > 10*time.Minute:
		return scenarios.Usagef("--loss (%s) must be within (0, 10m]", s.Loss)
	case s.FaultAt < time.Second:
		return scenarios.Usagef("--fault-at (%s) must be at least 1s (the second before the fault is the callers' steady state)", s.FaultAt)
	case s.Instances < 1 || s.Instances > 50:
		return scenarios.Usagef("--instances (%d) must be within 1–50", s.Instances)
	case !(s.Rate > 0 && s.Rate <= 200):
		return scenarios.Usagef("--rate (%g) must be within (0, 200] (each Java caller calls from a pool of 32 threads)", s.Rate)
	case c.Duration < s.FaultAt+s.Loss+minAfter:
		return scenarios.Usagef("--duration (%s) must be at least --fault-at + --loss + %s (%s; raise --after): the clients reconnect and re-register after the heal",
			c.Duration, minAfter, s.FaultAt+s.Loss+minAfter)
	case c.PortBase+incidentPortSpan > ports.MaxPort:
		return scenarios.Usagef("--port-base (%d) leaves no room: the run uses %d ports above it", c.PortBase, incidentPortSpan)
	}
	return s.validateRestart()
}

// validateRestart checks --restart-at: inside a blackhole, with room
// after it for a Java client's start-up and some calls before the heal.
func (s *nacosIncident) validateRestart() error {
	switch {
	case s.RestartAt < 0:
		return scenarios.Usagef("--restart-at (%s) must not be negative (0: no restart)", s.RestartAt)
	case s.RestartAt == 0:
		return nil
	case s.Fault != faultBlackhole:
		return scenarios.Usagef("--restart-at (%s) needs --fault blackhole (got %q): the restarted clients must not reach the server", s.RestartAt, s.Fault)
	case s.RestartAt <= s.FaultAt || s.RestartAt+restartRoom > s.FaultAt+s.Loss:
		return scenarios.Usagef("--restart-at (%s) must be within (--fault-at, --fault-at + --loss − %s] = (%s, %s]: a restarted Java client spends %s "+
			"in its start-up connection attempts before its first call; raise --loss", s.RestartAt, restartRoom, s.FaultAt, s.FaultAt+s.Loss-restartRoom, javaStartup())
	}
	return nil
}

// Run is the plan: the real Nacos world (its server's main port
// --port-base + 1000), the instances and the callers each through its own
// link, and the timeline (the fault from --fault-at for --loss, the
// restart at --restart-at), run through the one run path.
func (s *nacosIncident) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	return runWorld(ctx, env, s.worldSpec(env), "the incident")
}

// runWorld runs the real Nacos world spec describes through the one run path, its processes
// under the run's supervisor; what names the run in its error.
func runWorld(ctx context.Context, env *scenarios.Env, spec nacos.WorldSpec, what string) (*history.History, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, err
	}
	w, err := nacos.NewWorld(sup, spec)
	if err != nil {
		return nil, err
	}
	describeConstants(env)
	h, err := rig.Run(ctx, env, w)
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", what, err)
	}
	return h, nil
}

// worldSpec is the run's world: the server, --instances instances
// registered one after another, the callers at --rate from time zero
// (once every caller is ready) for --duration.
func (s *nacosIncident) worldSpec(env *scenarios.Env) nacos.WorldSpec {
	sp := nacos.DefaultServerSpec()
	sp.KeepHome, sp.Logf = env.Keep, env.Printf
	main := env.PortBase + serverOffset
	clients := ports.New(main+2, "--port-base") // main+1000 and main+1001 are the server's gRPC ports
	ws := nacos.WorldSpec{Server: sp, ServerPorts: ports.New(main, "--port-base"), LinkPorts: clients, EndpointPorts: clients,
		Service: "svc", Instances: s.Instances, Parallel: 1, Callers: s.names(), Rate: s.Rate, CallTimeout: time.Second,
		JVMStart: nacos.CallerPatience, Sample: incidentSample, Duration: env.Duration, Ready: true, Timeline: s.timeline,
		NewRecorder: (&rig.SharedRecorder{Env: env}).New, Describe: env.Describe, Keep: env.Keep}
	if !env.Quiet {
		ws.Logf = env.Printf
	}
	return ws
}

// timeline is the incident's: every client link blackholed (or every
// instance deregistered) from --fault-at for --loss, and the restarted
// callers killed and started again at --restart-at.
func (s *nacosIncident) timeline(w *nacos.World) (fault.Timeline, error) {
	var f fault.Fault = fault.BlackholeLinks{Links: w.Links()}
	if s.Fault == faultEmpty {
		f = fault.DeregisterInstances{Instances: w.Registrations()}
	}
	tl := fault.Timeline{{At: s.FaultAt, For: s.Loss, Fault: f}}
	if !s.restarts() {
		return tl, nil
	}
	rs, err := w.Restartables(s.restarted())
	if err != nil {
		return nil, err
	}
	return append(tl, fault.Step{At: s.RestartAt, Fault: fault.RestartCallers{Callers: rs}}), nil
}
