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
		Name:    "nacos-protect-threshold",
		Article: "Nacos article / nacos#11123",
		Summary: "a real Nacos 3.1 service's protectThreshold while its instances die: what the server hands each client, and whether callers then hit dead instances",
		Help:    protectHelp,
		Variants: []scenarios.Variant{
			{Name: "half", Args: []string{"--threshold", "0.5"},
				Why: "protectThreshold 0.5: with 1 of 4 instances healthy the server hands out all 4 marked healthy, and callers hit the dead ones"},
		},
		Ground: scenarios.LoopbackServers, // a real Nacos server on 127.0.0.1 behind the harness's link proxies
		New: func() scenarios.Config {
			return &protect{Threshold: 0, Instances: 4, Crash: 3, CrashAt: 10 * time.Second, AllDeadAt: 70 * time.Second, Rate: 20}
		},
	})
}

// protect is a persistent service on the real Nacos server with a protectThreshold: --crash
// of its --instances die at --crash-at, the rest at --all-dead-at; the server health-checks
// them and hands its clients what its protection rule says.
type protect struct {
	// Threshold is the service's protectThreshold.
	Threshold float64
	// Instances register; Crash of them die at CrashAt, the others at AllDeadAt.
	Instances, Crash   int
	CrashAt, AllDeadAt time.Duration
	// Rate is every caller's calls per second.
	Rate float64
}

// The plan's fixed settings.
const (
	// protectAfter is the observation after the last crash.
	protectAfter = 60 * time.Second
)

// Defaults derives the timeline: --all-dead-at + protectAfter.
func (s *protect) Defaults(c *scenarios.Common) { c.Duration = s.AllDeadAt + protectAfter }

// Flags binds the scenario's flags.
func (s *protect) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&s.Threshold, "threshold", s.Threshold, "the service's protectThreshold (Nacos's default 0)")
	fs.IntVar(&s.Instances, "instances", s.Instances, "persistent instances of the service, health-checked by the server over TCP")
	fs.IntVar(&s.Crash, "crash", s.Crash, "instances that die at --crash-at (their endpoints closed, their registrations left)")
	fs.DurationVar(&s.CrashAt, "crash-at", s.CrashAt, "when --crash instances die, from the callers' first call")
	fs.DurationVar(&s.AllDeadAt, "all-dead-at", s.AllDeadAt, "when the remaining instances die too")
	fs.Float64Var(&s.Rate, "rate", s.Rate, "calls per second of each caller, open loop")
}

// Validate reports a bad combination of values, quoting them.
func (s *protect) Validate(c scenarios.Common) error {
	switch {
	case !(s.Threshold >= 0 && s.Threshold <= 1):
		return scenarios.Usagef("--threshold (%g) must be within [0, 1]", s.Threshold)
	case s.Instances < 2 || s.Instances > 20:
		return scenarios.Usagef("--instances (%d) must be within 2–20", s.Instances)
	case s.Crash < 1 || s.Crash >= s.Instances:
		return scenarios.Usagef("--crash (%d) must be within [1, --instances − 1] = [1, %d]", s.Crash, s.Instances-1)
	case s.CrashAt < 2*time.Second:
		return scenarios.Usagef("--crash-at (%s) must be at least 2s", s.CrashAt)
	case s.AllDeadAt < s.CrashAt+springSettle()+10*time.Second:
		return scenarios.Usagef("--all-dead-at (%s) must be at least --crash-at + %s (%s): Spring's list settles %s after the health check",
			s.AllDeadAt, springSettle()+10*time.Second, s.CrashAt+springSettle()+10*time.Second, springSettle())
	case c.Duration < s.AllDeadAt+springSettle()+10*time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --all-dead-at + %s", c.Duration, springSettle()+10*time.Second)
	case !(s.Rate > 0 && s.Rate <= 200):
		return scenarios.Usagef("--rate (%g) must be within (0, 200]", s.Rate)
	case c.PortBase+incidentPortSpan > ports.MaxPort:
		return scenarios.Usagef("--port-base (%d) leaves no room: the run uses %d ports above it", c.PortBase, incidentPortSpan)
	}
	return nil
}

// Run is the plan: the server, the persistent service with --threshold, its instances, the
// six callers, and the two crashes on the timeline, run through the one run path.
func (s *protect) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	sp := nacos.DefaultServerSpec()
	sp.KeepHome, sp.Logf = env.Keep, env.Printf
	main := env.PortBase + serverOffset
	clients := ports.New(main+2, "--port-base")
	ws := nacos.WorldSpec{Server: sp, ServerPorts: ports.New(main, "--port-base"), LinkPorts: clients, EndpointPorts: clients,
		Service: "svc", ServiceSettings: &nacos.ServiceSettings{Persistent: true, ProtectThreshold: s.Threshold},
		Instances: s.Instances, Parallel: 1, Callers: callerNamesOf(false), Rate: s.Rate, CallTimeout: time.Second,
		JVMStart: nacos.CallerPatience, Sample: incidentSample, Duration: env.Duration, Ready: true, Timeline: s.timeline,
		NewRecorder: (&rig.SharedRecorder{Env: env}).New, Keep: env.Keep}
	if !env.Quiet {
		ws.Logf = env.Printf
	}
	return runWorld(ctx, env, ws, "the protect threshold")
}

// timeline crashes the first --crash instances at --crash-at and the rest at --all-dead-at.
func (s *protect) timeline(w *nacos.World) (fault.Timeline, error) {
	all := w.Crashables()
	if len(all) != s.Instances {
		return nil, fmt.Errorf("crashing instances: the world has %d, want %d", len(all), s.Instances)
	}
	first, rest := all[:s.Crash], all[s.Crash:]
	return fault.Timeline{{At: s.CrashAt, Fault: fault.CrashEndpoints{Instances: first}},
		{At: s.AllDeadAt, Fault: fault.CrashEndpoints{Instances: rest}}}, nil
}
