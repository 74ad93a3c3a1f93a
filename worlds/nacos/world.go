package nacos

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/cpulimit"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/ports"
)

// CallerPatience is the usual WorldSpec.JVMStart: at a load of 30 on two cores a Spring
// caller took 110 s to be ready, and four Java callers may start beside three members.
const CallerPatience = 4 * time.Minute

// WorldSpec is one run in the real Nacos world: a fresh server, Instances ephemeral instances
// (each its own nacos-sdk-go client behind its own Link), the named Callers (each behind its
// own Link), the server's list read every Sample (and, with Probe, its readiness, CPU time and
// RSS every Probe), and a timeline of fault values on the world's targets. The run's zero is
// Settle after the server first listed every instance or, with callers, shortly after every
// caller is ready (its client built and warmed up, waiting for its gate) when that is later;
// Timeline's offsets and Duration are from it.
type WorldSpec struct {
	// Server is the server's spec.
	Server ServerSpec
	// CPULimit, when positive, puts the server's JVM, once it is ready, under a CPU quota of
	// that many CPUs (package cpulimit: a cgroup, removed at Close or by the reaper); the run
	// fails with cpulimit.ErrUnavailable where no cgroup is writable. Single server only.
	CPULimit float64
	// Cluster, when set, runs a cluster of members instead of the server (Server is then
	// unused): every client is given every member, through a link to each (NewClusterLink).
	Cluster *ClusterSpec
	// ClientSource, when valid, is the address every link's proxies dial the server or the
	// members from (NewLinkFrom): in a private network namespace a packet fault then selects
	// the clients' traffic (DropClients.Source) and leaves the harness's own reads alone.
	ClientSource netip.Addr
	// ServerPorts gives the server's main port; LinkPorts each link's HTTP port (its gRPC
	// port is 1000 above); EndpointPorts the instances' own ports (it may be LinkPorts).
	ServerPorts, LinkPorts, EndpointPorts *ports.Allocator
	// Service is the service the instances register and the callers call.
	Service string
	// ServiceSettings, when set, creates the service before the instances register, with its
	// settings; nil leaves it to the first registration (ephemeral, protectThreshold 0).
	ServiceSettings *ServiceSettings
	// Instances is how many instances register, Parallel of them at once.
	Instances, Parallel int
	// Callers names the callers (from KnownCallers), in the order they start.
	Callers []string
	// Rate and CallTimeout are every caller's.
	Rate        float64
	CallTimeout time.Duration
	// JVMStart is the longest the callers get to be ready (a JVM started, its client built and
	// warmed up) from their launch; the run fails to start past it.
	JVMStart time.Duration
	// Settle is the least time from the server listing every instance to the run's zero (0:
	// none; with callers the zero is also no earlier than when they are all ready).
	Settle time.Duration
	// Sample is the period of the readings of the server's list; Probe, when positive, the
	// period of the readings of its readiness, CPU time and RSS.
	Sample, Probe time.Duration
	// Duration is how long the run lasts from its zero.
	Duration time.Duration
	// Ready records the generic ready gate (history.ReadyOp): the server's last reading
	// before the first fault, and whether it listed every instance.
	Ready bool
	// Timeline builds the run's fault and probe timeline on the started world (offsets from
	// the run's zero); it is called once the callers are launched.
	Timeline func(w *World) (fault.Timeline, error)
	// NewRecorder returns the recorder the run records into, time zero t0 and real its length
	// from there (a shared one, to put consecutive worlds on one timeline); nil: a new one.
	NewRecorder func(t0 time.Time, real time.Duration) *history.Recorder
	// Describe, when set, receives what the world runs (the server as its jar says, its
	// settings, the callers' and instances' clients) once the server has started.
	Describe func(history.World)
	// Keep keeps the clients' directory (their caches and logs) after the supervisor closes.
	Keep bool
	// Logf receives progress; nil discards it.
	Logf func(format string, args ...any)
}

// ServiceSettings are a service's settings the world creates it with.
type ServiceSettings struct {
	// Persistent makes a persistent service: its instances are registered through the
	// server's admin API (no client holds them) and health-checked by the server over TCP;
	// false, the instances are ephemeral, each held by its own nacos-sdk-go client.
	Persistent bool
	// ProtectThreshold is the service's protectThreshold: when the healthy share of its
	// instances is at most this, the server hands out every instance marked healthy.
	ProtectThreshold float64
}

// MaxInstances bounds WorldSpec.Instances (each instance is a client, an endpoint and two
// proxies in the harness's process).
const MaxInstances = 900

// Validate reports the first setting out of range, quoting it.
func (s WorldSpec) Validate() error {
	switch {
	case s.ServerPorts == nil || s.LinkPorts == nil || s.EndpointPorts == nil:
		return errors.New("WorldSpec: ServerPorts, LinkPorts and EndpointPorts are required")
	case s.Service == "":
		return errors.New("WorldSpec.Service is empty")
	case s.Instances < 1 || s.Instances > MaxInstances:
		return fmt.Errorf("WorldSpec.Instances (%d) must be within [1, %d]", s.Instances, MaxInstances)
	case s.Parallel < 1:
		return fmt.Errorf("WorldSpec.Parallel (%d) must be at least 1", s.Parallel)
	case s.Sample <= 0 || s.Probe < 0 || s.Duration <= 0 || s.Settle < 0:
		return fmt.Errorf("WorldSpec durations must be positive (Sample %s, Probe %s, Duration %s, Settle %s)", s.Sample, s.Probe, s.Duration, s.Settle)
	case len(s.Callers) > 0 && s.JVMStart <= 0:
		return fmt.Errorf("WorldSpec.JVMStart (%s) must be positive with callers", s.JVMStart)
	case s.Timeline == nil:
		return errors.New("WorldSpec.Timeline is nil")
	}
	if s.CPULimit < 0 || (s.CPULimit > 0 && s.Cluster != nil) {
		return fmt.Errorf("WorldSpec.CPULimit (%g) must be ≥ 0, and 0 with a cluster", s.CPULimit)
	}
	if s.Cluster != nil {
		if err := s.Cluster.Validate(); err != nil {
			return fmt.Errorf("WorldSpec.Cluster: %w", err)
		}
	}
	for _, n := range s.Callers {
		if _, ok := callerKinds[n]; !ok {
			return fmt.Errorf("WorldSpec.Callers: unknown caller %q (known: %v)", n, KnownCallers())
		}
	}
	if len(s.Callers) == 0 {
		return nil
	}
	return CallerSpec{Service: s.Service, Rate: s.Rate, Start: time.Unix(0, 0), End: time.Unix(1, 0), CallTimeout: s.CallTimeout,
		Log: &CallLog{}}.Validate()
}

// World is the real Nacos world behind the harness's one run path: it implements rig.World
// (Describe, Start, Traffic, Timeline, Recorder, Finish, Close) without knowing the rig, and
// hands the timeline its targets (Links, InstanceLinks, Registrations, Restartables). Every
// process it starts belongs to the supervisor; Close releases the rest.
type World struct {
	spec WorldSpec
	sup  *childproc.Supervisor
	// ctx is the run's context (from Traffic), for callers started again by a fault.
	ctx    context.Context
	server *Server
	// cluster is the cluster (nil for a single server); members reads its members' lists.
	cluster *Cluster
	members *memberSampler
	owners  []Owner
	limit   *cpulimit.Limit
	// serverLine names the running server as its jar says (after Start).
	serverLine string
	dir        string
	sdkLog     *os.File
	instances  []*instance
	callers    []*worldCaller
	// listed is when the server first listed every instance; zero the run's zero.
	listed, zero time.Time
	rec          *history.Recorder
	end          time.Duration
	sampler      *sampler
	prober       *prober
	closeOnce    sync.Once
}

// NewWorld returns the world spec describes, its processes under sup; nothing starts before
// Start.
func NewWorld(sup *childproc.Supervisor, spec WorldSpec) (*World, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("the Nacos world: %w", err)
	}
	if spec.Logf == nil {
		spec.Logf = func(string, ...any) {}
	}
	return &World{spec: spec, sup: sup}, nil
}

// Describe names the world for progress lines.
func (w *World) Describe() string {
	servers := "1 server"
	if w.spec.Cluster != nil {
		servers = fmt.Sprintf("a cluster of %d", w.spec.Cluster.Size)
	}
	return fmt.Sprintf("%s, %s, %d instances, %d callers %v, for %s", w.serverLine, servers, w.spec.Instances, len(w.spec.Callers),
		w.spec.Callers, w.spec.Duration)
}

// Server returns the world's server (nil before Start).
func (w *World) Server() *Server { return w.server }

// Listed returns when the server first listed every instance (after Start; when it never did
// within listPatience, the end of the wait).
func (w *World) Listed() time.Time { return w.listed }

// Close releases what the world started: the callers, the instances' clients and endpoints,
// the links, and the server. It is safe to call more than once.
func (w *World) Close() {
	w.closeOnce.Do(func() {
		for _, c := range w.callers {
			c.stop()
		}
		var wg sync.WaitGroup
		for _, in := range w.instances {
			wg.Add(1)
			go func() { defer wg.Done(); in.close() }()
		}
		wg.Wait()
		for _, c := range w.callers {
			c.link.Close()
		}
		if w.cluster != nil {
			w.cluster.KillAll()
		} else if w.server != nil {
			w.server.Kill()
		}
		if w.limit != nil {
			if err := w.limit.Remove(); err != nil {
				w.spec.Logf("%v", err)
			}
		}
		if w.sdkLog != nil {
			SetSDKLog(nil)
			_ = w.sdkLog.Close()
		}
	})
}
