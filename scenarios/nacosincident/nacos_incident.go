package nacosincident

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/history"
	"sdchaos/nacosreal"
	"sdchaos/ports"
	"sdchaos/scenarios"
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
		Without: []string{"net", "external"}, // no etcd: the real Nacos server and its clients stay on 127.0.0.1 behind the harness's link proxies
		New: func() scenarios.Config {
			return &nacosIncident{Fault: nacosreal.FaultBlackhole, Loss: 18 * time.Second, FaultAt: 5 * time.Second, After: 20 * time.Second,
				Instances: 3, Rate: 40}
		},
	})
}

// nacosIncident is the Nacos article's incident on the real Nacos server
// and real clients (package nacosreal): every client link blackholed for
// --loss, or every instance deregistered while alive.
type nacosIncident struct {
	// Fault is nacosreal.FaultBlackhole or nacosreal.FaultEmpty.
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
	// incidentJVMStart is how long the callers get to start before their
	// first call (four Java callers start at once beside the server).
	incidentJVMStart = 30 * time.Second
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
	serverOffset = -nacosreal.RaftOffset
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
	case s.Fault != nacosreal.FaultBlackhole && s.Fault != nacosreal.FaultEmpty:
		return scenarios.Usagef("--fault %q: want %s or %s", s.Fault, nacosreal.FaultBlackhole, nacosreal.FaultEmpty)
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
	case s.Fault != nacosreal.FaultBlackhole:
		return scenarios.Usagef("--restart-at (%s) needs --fault blackhole (got %q): the restarted clients must not reach the server", s.RestartAt, s.Fault)
	case s.RestartAt <= s.FaultAt || s.RestartAt+restartRoom > s.FaultAt+s.Loss:
		return scenarios.Usagef("--restart-at (%s) must be within (--fault-at, --fault-at + --loss − %s] = (%s, %s]: a restarted Java client spends %s "+
			"in its start-up connection attempts before its first call; raise --loss", s.RestartAt, restartRoom, s.FaultAt, s.FaultAt+s.Loss-restartRoom, javaStartup())
	}
	return nil
}

// Run is the plan: the real Nacos server (main port --port-base + 1000),
// the instances and the six callers through their own links, the fault
// from --fault-at for --loss, and the record turned into the history.
func (s *nacosIncident) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, err
	}
	spec := nacosreal.DefaultServerSpec()
	spec.KeepHome, spec.Logf = env.Keep, env.Printf
	main := env.PortBase + serverOffset
	server, err := nacosreal.StartServer(ctx, sup, ports.New(main, "--port-base"), spec)
	if err != nil {
		return nil, fmt.Errorf("starting the Nacos server: %w", err)
	}
	env.Printf("Nacos %s ready on %s in %.1f s", nacosVersion, server.Addr(), server.StartupTime().Seconds())
	clients := ports.New(main+2, "--port-base") // main+1000 and main+1001 are the server's gRPC ports
	js := s.jitterSpec(env)
	res, err := nacosreal.RunJitter(ctx, sup, clients, server, js)
	if err != nil {
		return nil, fmt.Errorf("running the incident: %w", err)
	}
	h, err := incidentHistory(res, js, server.StartupTime())
	if err != nil {
		return nil, fmt.Errorf("recording the incident: %w", err)
	}
	h.Timeline = env.Duration
	return h, nil
}

// nacosVersion names the server that runs.
const nacosVersion = "3.1.0 (io.github.pig-mesh.nacos:nacos-server 3.1.0-bugfix)"

// jitterSpec is the run's nacosreal.JitterSpec.
func (s *nacosIncident) jitterSpec(env *scenarios.Env) nacosreal.JitterSpec {
	j := nacosreal.DefaultJitterSpec()
	j.Fault, j.Instances, j.Rate = s.Fault, s.Instances, s.Rate
	j.Warmup, j.Jitter, j.After = s.FaultAt, s.Loss, env.Duration-s.FaultAt-s.Loss
	j.JVMStart, j.KeepDir, j.Sample = incidentJVMStart, env.Keep, incidentSample
	j.Callers, j.Restart, j.RestartAt = s.names(), s.restarted(), s.RestartAt
	if !env.Quiet {
		j.Logf = env.Printf
	}
	return j
}
