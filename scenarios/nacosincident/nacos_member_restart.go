package nacosincident

import (
	"context"
	"flag"
	"slices"
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
		Name:    "nacos-member-restart",
		Article: "Nacos article / nacos#10209",
		Summary: "one member of a real 3-member Nacos 3.1 cluster restarted under traffic: does any client get an empty or shrunken list, and does each protection hold",
		Help:    memberRestartHelp,
		Ground:  scenarios.LoopbackServers, // the cluster and its clients stay on 127.0.0.1 behind the harness's link proxies
		New: func() scenarios.Config {
			return &memberRestart{Member: "nacos2", RestartAt: 10 * time.Second, Down: 2 * time.Second, Instances: 3, Rate: 20}
		},
	})
}

// memberRestart is alibaba/nacos#10209 on the real cluster: one member of three SIGKILLed
// under traffic and started again on its own data, every client given every member.
type memberRestart struct {
	// Member names the restarted member (nacos1…nacos3).
	Member string
	// RestartAt is when the member is killed (from the callers' first call); Down how long it
	// stays down before its JVM is launched again.
	RestartAt, Down time.Duration
	// Instances is how many instances register; Rate every caller's calls per second.
	Instances int
	Rate      float64
}

// The plan's fixed settings.
const (
	// restartObserve is the default observation after the kill: the 3 min the survivors keep
	// the killed member's clients (ClientConstants.DEFAULT_CLIENT_EXPIRED_TIME) plus the
	// cleaner's period and a margin, so that their expiry is inside the run.
	restartObserve = 3*time.Minute + 20*time.Second
	// restartSample is how often every member's list is read.
	restartSample = 200 * time.Millisecond
	// restartLinkOffset puts the links and endpoints above the members' main ports
	// (--port-base + 1000 …, MemberPortStride apart).
	restartLinkOffset = 1010
	// minServed is the least observation after the restarted member is ready again.
	minServed = 20 * time.Second
)

// Defaults derives the timeline: --restart-at + restartObserve.
func (s *memberRestart) Defaults(c *scenarios.Common) { c.Duration = s.RestartAt + restartObserve }

// Flags binds the scenario's flags.
func (s *memberRestart) Flags(fs *flag.FlagSet) {
	fs.StringVar(&s.Member, "member", s.Member, "the member restarted: nacos1, nacos2 or nacos3 (nacos1's list is the one the table calls the server's)")
	fs.DurationVar(&s.RestartAt, "restart-at", s.RestartAt, "when the member is SIGKILLed, from the callers' first call")
	fs.DurationVar(&s.Down, "down", s.Down, "how long the member stays down before its JVM is launched again on its data")
	fs.IntVar(&s.Instances, "instances", s.Instances, "instances registering the service (Go, nacos-sdk-go, each given every member)")
	fs.Float64Var(&s.Rate, "rate", s.Rate, "calls per second of each caller, open loop")
}

// memberNames are the members of the three-member cluster.
var memberNames = []string{"nacos1", "nacos2", "nacos3"}

// Validate reports a bad combination of values, quoting them.
func (s *memberRestart) Validate(c scenarios.Common) error {
	switch {
	case !slices.Contains(memberNames, s.Member):
		return scenarios.Usagef("--member %q: want one of %v", s.Member, memberNames)
	case s.RestartAt < 2*time.Second:
		return scenarios.Usagef("--restart-at (%s) must be at least 2s (the seconds before are the callers' steady state)", s.RestartAt)
	case s.Down <= 0 || s.Down > time.Minute:
		return scenarios.Usagef("--down (%s) must be within (0, 1m]", s.Down)
	case s.Instances < 1 || s.Instances > 20:
		return scenarios.Usagef("--instances (%d) must be within 1–20", s.Instances)
	case !(s.Rate > 0 && s.Rate <= 200):
		return scenarios.Usagef("--rate (%g) must be within (0, 200]", s.Rate)
	case c.Duration < s.RestartAt+s.Down+minServed:
		return scenarios.Usagef("--duration (%s) must be at least --restart-at + --down + %s (%s): the member needs time to serve again",
			c.Duration, minServed, s.RestartAt+s.Down+minServed)
	case c.PortBase+incidentPortSpan > ports.MaxPort:
		return scenarios.Usagef("--port-base (%d) leaves no room: the run uses %d ports above it", c.PortBase, incidentPortSpan)
	}
	return nil
}

// Run is the plan: the cluster (its main ports from --port-base + 1000), the instances and the
// callers each given every member through its own links, and the member's kill and relaunch
// on the timeline, run through the one run path.
func (s *memberRestart) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	return runWorld(ctx, env, s.worldSpec(env), "the member restart")
}

// worldSpec is the run's world: DefaultClusterSpec's three members, the instances, the six
// callers at --rate from time zero (once every caller is ready), for --duration.
func (s *memberRestart) worldSpec(env *scenarios.Env) nacos.WorldSpec {
	cs := nacos.DefaultClusterSpec()
	cs.Member.KeepHome, cs.Member.Logf = env.Keep, env.Printf
	clients := ports.New(env.PortBase+restartLinkOffset, "--port-base")
	ws := nacos.WorldSpec{Cluster: &cs, ServerPorts: ports.New(env.PortBase+serverOffset, "--port-base"), LinkPorts: clients,
		EndpointPorts: clients, Service: "svc", Instances: s.Instances, Parallel: 1, Callers: callerNamesOf(false), Rate: s.Rate,
		CallTimeout: time.Second, JVMStart: nacos.CallerPatience, Sample: restartSample, Duration: env.Duration, Ready: true,
		Timeline: s.timeline, NewRecorder: (&rig.SharedRecorder{Env: env}).New, Keep: env.Keep}
	if !env.Quiet {
		ws.Logf = env.Printf
	}
	return ws
}

// timeline kills the member at --restart-at and launches it again --down later.
func (s *memberRestart) timeline(w *nacos.World) (fault.Timeline, error) {
	ms, err := w.Members([]string{s.Member})
	if err != nil {
		return nil, err
	}
	return fault.Timeline{{At: s.RestartAt, For: s.Down, Fault: fault.KillServers{Servers: ms, What: "Nacos"}}}, nil
}
