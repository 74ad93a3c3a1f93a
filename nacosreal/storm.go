package nacosreal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// StormSpec is one phase of a re-registration storm on a real server: Instances ephemeral
// instances (each its own nacos-sdk-go client behind its own Link) register; Warmup after the
// server lists them all, every link is blackholed; Loss later link i is healed HealDelays[i]
// after the end of the loss; the phase goes on After the last heal.
type StormSpec struct {
	// Service is the service name.
	Service string
	// Instances is how many instances register, each with its own client and link.
	Instances int
	// Warmup, Loss and After lay out the phase (see the type's comment).
	Warmup, Loss, After time.Duration
	// HealDelays holds each link's heal delay after the loss (nil: every link at once).
	HealDelays []time.Duration
	// Sample is the period of the readings of the server's list (its admin API); Probe the
	// period of the readiness, CPU time and RSS readings.
	Sample, Probe time.Duration
	// Parallel is how many instances register at once at the start.
	Parallel int
	// KeepDir keeps the clients' directory (their caches and the SDK's log).
	KeepDir bool
	// Logf receives progress; nil discards it.
	Logf func(format string, args ...any)
}

// DefaultStormSpec returns 200 instances, a 40 s loss from 5 s, every link healed at once, 20 s
// after; the list read every 100 ms, the server probed every 500 ms, 8 registrations at once.
func DefaultStormSpec() StormSpec {
	return StormSpec{Service: "svc", Instances: 200, Warmup: 5 * time.Second, Loss: 40 * time.Second, After: 20 * time.Second,
		Sample: 100 * time.Millisecond, Probe: 500 * time.Millisecond, Parallel: 8}
}

// Validate reports the first setting out of range, quoting it.
func (s StormSpec) Validate() error {
	switch {
	case s.Service == "":
		return errors.New("StormSpec.Service is empty")
	case s.Instances < 1 || s.Instances > MaxStormInstances:
		return fmt.Errorf("StormSpec.Instances (%d) must be within [1, %d]", s.Instances, MaxStormInstances)
	case s.HealDelays != nil && len(s.HealDelays) != s.Instances:
		return fmt.Errorf("StormSpec.HealDelays holds %d delays for %d instances", len(s.HealDelays), s.Instances)
	case s.Warmup <= 0 || s.Loss <= 0 || s.After <= 0 || s.Sample <= 0 || s.Probe <= 0:
		return fmt.Errorf("StormSpec durations must be positive (Warmup %s, Loss %s, After %s, Sample %s, Probe %s)",
			s.Warmup, s.Loss, s.After, s.Sample, s.Probe)
	case s.Parallel < 1:
		return fmt.Errorf("StormSpec.Parallel (%d) must be at least 1", s.Parallel)
	}
	for i, d := range s.HealDelays {
		if d < 0 {
			return fmt.Errorf("StormSpec.HealDelays[%d] (%s) is negative", i, d)
		}
	}
	return nil
}

// MaxStormInstances bounds StormSpec.Instances (each instance is a client, an endpoint and two
// proxies in the harness's process).
const MaxStormInstances = 900

// Registration is one instance's first registration as its client reported it.
type Registration struct {
	// Start and End bound the call (NewClient and RegisterInstance, with Register's retries).
	Start, End time.Time
	// Err is its error ("" when it succeeded).
	Err string
}

// Probe is one reading of the server process and its readiness endpoint.
type Probe struct {
	At time.Time
	// ReadyErr is the readiness endpoint's failure ("" when it answered ok).
	ReadyErr string
	// CPU is the JVM's CPU time so far (user + system); RSS its resident set in bytes (−1 when
	// the process could not be read).
	CPU time.Duration
	RSS int64
}

// StormResult is what one storm phase recorded.
type StormResult struct {
	// Listed is when the server first listed every instance (zero when it never did within
	// listPatience); FaultAt when every link was blackholed; HealAt when each link was healed
	// (by instance); End when the phase's observation ended.
	Listed, FaultAt, End time.Time
	HealAt               []time.Time
	// HealErrs holds the links whose heal failed, by instance.
	HealErrs map[int]string
	// Registrations holds each instance's first registration, by instance.
	Registrations []Registration
	// Server is the server's list of the service, sampled over the phase; Probes its readiness,
	// CPU time and RSS; ServerLog what its own logs say (pushes, disconnects, ejections).
	Server    []Sample
	Probes    []Probe
	ServerLog []ServerEvent
}

// RunStorm runs one storm phase on server s: links from links (HTTP at p, gRPC at p + 1000),
// the instances' endpoints from endpoints. Every link is healed and closed, and every client
// closed, on return.
func RunStorm(ctx context.Context, sup *childproc.Supervisor, links, endpoints *ports.Allocator, s *Server, spec StormSpec) (StormResult, error) {
	if err := spec.Validate(); err != nil {
		return StormResult{}, fmt.Errorf("storm phase: %w", err)
	}
	dir, err := sup.TempDir("sdchaos-nacos-storm-*", spec.KeepDir)
	if err != nil {
		return StormResult{}, fmt.Errorf("storm phase: %w", err)
	}
	w := &stormWorld{server: s, dir: dir, spec: spec, logf: spec.Logf}
	if w.logf == nil {
		w.logf = func(string, ...any) {}
	}
	defer w.close()
	if f, err := os.Create(filepath.Join(dir, "nacos-sdk-go.log")); err == nil {
		SetSDKLog(f)
		defer f.Close()
		defer SetSDKLog(nil)
	}
	if err := w.build(ctx, links, endpoints); err != nil {
		return StormResult{}, fmt.Errorf("storm phase: %w", err)
	}
	return w.run(ctx)
}
