package nacosincident

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
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
		Name:    "nacos-storm",
		Article: "Nacos article",
		Summary: "N instances re-registering on a real Nacos 3.1 server when the link returns: every link healed at once, or at a jittered delay",
		Help:    stormHelp,
		Ground:  scenarios.LoopbackServers, // no etcd: the real Nacos server and its clients stay on 127.0.0.1 behind the harness's link proxies
		New: func() scenarios.Config {
			return &nacosStorm{Instances: 200, FaultAt: 5 * time.Second, Loss: 40 * time.Second, Spread: 5 * time.Second, After: 20 * time.Second}
		},
	})
}

// nacosStorm is the Nacos article's re-registration storm on the real
// server: --instances nacos-sdk-go instances, each behind its own link,
// lose the server for --loss; then every link is healed at once
// (immediate) or each at its own seeded delay within --spread (jitter),
// each strategy in its own phase on its own fresh server.
type nacosStorm struct {
	// Instances is how many instances register in each phase.
	Instances int
	// FaultAt is when the loss starts after the server listed every
	// instance; Loss how long every link is blackholed; Spread the
	// jitter's heal spread; After the observation after the last heal.
	FaultAt, Loss, Spread, After time.Duration
	// CPULimit, when positive, puts each phase's server, once ready, under a CPU quota of
	// that many CPUs (a cgroup): the scaled storm.
	CPULimit float64
}

// The strategies, one phase each, in the order they run.
const (
	// stormImmediate heals every link at once: the SDK's own reconnect
	// back-off decides when each instance re-registers.
	stormImmediate = "immediate"
	// stormJitter heals each link at a uniform random delay in
	// [0, --spread): a jittered re-registration, drawn by the harness.
	stormJitter = "jitter"
)

// stormStrategies are the phases in order.
var stormStrategies = []string{stormImmediate, stormJitter}

// The plan's fixed settings.
const (
	// stormSample is how often the server's list is read (its admin API):
	// the resolution of the re-registration rate per 100 ms.
	stormSample = 100 * time.Millisecond
	// stormProbe is how often the server's readiness, CPU time and RSS
	// are read.
	stormProbe = 500 * time.Millisecond
	// stormParallel is how many instances register at once at the start.
	stormParallel = 8
	// stormPhaseSpan is how many ports a phase uses above its base: JRaft
	// at the base, the server at +1000 (gRPC +2000, +2001), the links
	// from +1002 (gRPC proxies 1000 above), the endpoints from +3000.
	stormPhaseSpan = 3000 + maxStormInstances
	// maxStormInstances bounds --instances: the links' gRPC proxies
	// (+2002 …) must stay below the endpoints (+3000).
	maxStormInstances = 900
)

// Defaults derives the timeline of each phase: --fault-at + --loss +
// --spread + --after.
func (s *nacosStorm) Defaults(c *scenarios.Common) {
	c.Duration = s.FaultAt + s.Loss + s.Spread + s.After
}

// Flags binds the scenario's flags.
func (s *nacosStorm) Flags(fs *flag.FlagSet) {
	fs.IntVar(&s.Instances, "instances", s.Instances, "ephemeral instances (nacos-sdk-go clients, each behind its own link proxy) in each phase")
	fs.DurationVar(&s.FaultAt, "fault-at", s.FaultAt, "when every link is blackholed, after the server listed every instance")
	fs.DurationVar(&s.Loss, "loss", s.Loss, "how long every link is blackholed (longer than 34 s: the server removes every instance)")
	fs.DurationVar(&s.Spread, "spread", s.Spread, "jitter phase: each link is healed at a uniform random delay in [0, spread), seeded by --seed (the harness's jitter, not the SDK's)")
	fs.Float64Var(&s.CPULimit, "cpu-limit", s.CPULimit, "CPUs each phase's server may use once ready (a cgroup CPU quota; needs root and a writable "+
		"cgroup hierarchy): the scaled storm; 0: no limit")
	fs.DurationVar(&s.After, "after", s.After, "observation after the last heal (a phase is --fault-at + --loss + --spread + --after unless --duration is given)")
}

// Validate reports a bad combination of values, quoting them.
func (s *nacosStorm) Validate(c scenarios.Common) error {
	switch {
	case s.Instances < 1 || s.Instances > maxStormInstances:
		return scenarios.Usagef("--instances (%d) must be within 1–%d", s.Instances, maxStormInstances)
	case s.FaultAt < time.Second:
		return scenarios.Usagef("--fault-at (%s) must be at least 1s (the steady state before the loss)", s.FaultAt)
	case s.Loss <= 0 || s.Loss > 10*time.Minute:
		return scenarios.Usagef("--loss (%s) must be within (0, 10m]", s.Loss)
	case s.CPULimit != 0 && !(s.CPULimit >= 0.05 && s.CPULimit <= 64):
		return scenarios.Usagef("--cpu-limit (%g) must be 0 or within [0.05, 64] CPUs", s.CPULimit)
	case s.Spread <= 0 || s.Spread > time.Minute:
		return scenarios.Usagef("--spread (%s) must be within (0, 1m]", s.Spread)
	case c.Duration < s.FaultAt+s.Loss+s.Spread+relistBy():
		return scenarios.Usagef("--duration (%s) must be at least --fault-at + --loss + --spread + %s (%s; raise --after): every instance re-registers within %s of its link's heal",
			c.Duration, relistBy(), s.FaultAt+s.Loss+s.Spread+relistBy(), relistBy())
	case c.PortBase+serverOffset < nacos.MinMainPort:
		return scenarios.Usagef("--port-base (%d) must be at least %d (the server's main port, --port-base + 1000, must be ≥ %d)", c.PortBase, nacos.MinMainPort-serverOffset, nacos.MinMainPort)
	case c.PortBase+len(stormStrategies)*stormPhaseSpan > ports.MaxPort:
		return scenarios.Usagef("--port-base (%d) leaves no room: the run uses %d ports above it", c.PortBase, len(stormStrategies)*stormPhaseSpan)
	}
	return nil
}

// Run is the plan: one phase per strategy, each a world of its own (a
// fresh server, ports from --port-base + phase × stormPhaseSpan, killed
// after its phase) run through the one run path, on one timeline (the
// phases share a recorder whose zero is when the first phase's server
// listed every instance); the jitter's delays are drawn from the run's
// seeded source.
func (s *nacosStorm) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	d := stormData{Instances: s.Instances, Loss: s.Loss, Spread: s.Spread, SamplePeriod: stormSample, ProbePeriod: stormProbe}
	shared := &rig.SharedRecorder{Env: env, NoEventLines: true}
	describeConstants(env, history.Constant{Name: "SDK connection set-up sleep", Value: sdkSetupSleep.String(),
		Where: "nacos-sdk-go GrpcClient.sendConnectionSetupRequest"})
	var h *history.History
	for i, strategy := range stormStrategies {
		ph, rec, err := s.runPhase(ctx, env, i, strategy, shared)
		if err != nil {
			return nil, fmt.Errorf("phase %s: %w", strategy, err)
		}
		h = ph
		d.Phases = append(d.Phases, phaseOf(strategy, rec))
		env.Printf("%s", describeHeals(h.Events, strategy))
	}
	if err := h.SetData(d); err != nil {
		return nil, fmt.Errorf("recording the storm: %w", err)
	}
	return h, nil
}

// runPhase runs phase i (strategy) in a world of its own on the shared
// recorder and returns the history so far and the phase's record.
func (s *nacosStorm) runPhase(ctx context.Context, env *scenarios.Env, i int, strategy string, shared *rig.SharedRecorder) (*history.History, nacos.Record, error) {
	sup, err := env.Supervisor()
	if err != nil {
		return nil, nacos.Record{}, err
	}
	w, err := nacos.NewWorld(sup, s.worldSpec(env, i, strategy, shared))
	if err != nil {
		return nil, nacos.Record{}, err
	}
	h, err := rig.Run(ctx, env, w)
	if err != nil {
		return nil, nacos.Record{}, err
	}
	var rec nacos.Record
	if err := h.DataInto(&rec); err != nil {
		return nil, rec, fmt.Errorf("the phase's record: %w", err)
	}
	return h, rec, nil
}

// worldSpec is phase i's world: --instances instances, stormParallel
// registering at once, the server read every stormSample and probed every
// stormProbe, for --fault-at + --loss + the last heal delay + the
// observation after it (--duration − --fault-at − --loss − --spread; the
// immediate phase adds --spread, so both last as long).
func (s *nacosStorm) worldSpec(env *scenarios.Env, i int, strategy string, shared *rig.SharedRecorder) nacos.WorldSpec {
	base := env.PortBase + i*stormPhaseSpan
	sp := nacos.DefaultServerSpec()
	sp.Name, sp.KeepHome, sp.Logf = "nacos-"+strategy, env.Keep, env.Printf
	after := env.Duration - s.FaultAt - s.Loss - s.Spread
	var delays []time.Duration
	if strategy == stormJitter {
		delays = jitterDelays(env.Rand, s.Instances, s.Spread)
	} else {
		after += s.Spread
	}
	ws := nacos.WorldSpec{Server: sp, ServerPorts: ports.New(base+serverOffset, "--port-base"),
		LinkPorts: ports.New(base+serverOffset+2, "--port-base"), EndpointPorts: ports.New(base+3000, "--port-base"),
		Service: "svc", Instances: s.Instances, Parallel: stormParallel, Sample: stormSample, Probe: stormProbe,
		Duration: s.FaultAt + s.Loss + lastOf(delays) + after, Timeline: s.timeline(strategy, delays), NewRecorder: shared.New,
		Describe: env.Describe, Keep: env.Keep, CPULimit: s.CPULimit}
	if !env.Quiet {
		ws.Logf = func(f string, a ...any) { env.Printf(strategy+": "+f, a...) }
	}
	return ws
}

// timeline blackholes every instance's link at --fault-at and heals link i
// --loss + delays[i] later (every link at once without delays): one step
// per link, each recorded as it fires.
func (s *nacosStorm) timeline(strategy string, delays []time.Duration) func(w *nacos.World) (fault.Timeline, error) {
	return func(w *nacos.World) (fault.Timeline, error) {
		links := w.InstanceLinks()
		tl := make(fault.Timeline, len(links))
		for i, l := range links {
			d := time.Duration(0)
			if delays != nil {
				d = delays[i]
			}
			tl[i] = fault.Step{At: s.FaultAt, For: s.Loss + d, Fault: fault.BlackholeLinks{Links: []fault.Link{l}, Cluster: strategy}}
		}
		return tl, nil
	}
}

// lastOf is the longest of ds (0 for none).
func lastOf(ds []time.Duration) time.Duration {
	var d time.Duration
	for _, x := range ds {
		d = max(d, x)
	}
	return d
}

// jitterDelays draws n delays uniform in [0, spread) from r.
func jitterDelays(r *rand.Rand, n int, spread time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(r.Int64N(int64(spread)))
	}
	return out
}
