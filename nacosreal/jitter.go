package nacosreal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// Faults of a jitter run.
const (
	// FaultBlackhole holds every byte of every client link (instances and callers) to the
	// server: the article's packet loss.
	FaultBlackhole = "blackhole"
	// FaultEmpty deregisters every instance (their endpoints stay up) and registers them again
	// at the heal: the registry answers an empty list while every instance is alive.
	FaultEmpty = "empty"
)

// JitterSpec is the Nacos article's incident on real pieces: Warmup after the callers' first
// call the Fault starts, Jitter later it is healed; the run goes on for After.
type JitterSpec struct {
	// Fault is FaultBlackhole or FaultEmpty.
	Fault string
	// Service is the service name; Instances how many Go-side instances register it, each with
	// its own nacos-sdk-go client and link.
	Service   string
	Instances int
	// Callers names the callers, from CallerNames.
	Callers []string
	// Rate and CallTimeout are every caller's.
	Rate        float64
	CallTimeout time.Duration
	// Warmup, Jitter and After lay out the timeline from the callers' first call.
	Warmup, Jitter, After time.Duration
	// JVMStart is how long the Java callers get to start before the first call.
	JVMStart time.Duration
	// Sample is the period of the readings of the server's list.
	Sample time.Duration
	// Restart names callers (of Callers) killed at RestartAt (from the callers' first call, inside
	// the fault) and started again at once on their own disk caches (CallerSpec.Restarted).
	Restart   []string
	RestartAt time.Duration
	// KeepDir keeps the clients' directory (their caches and logs) after the supervisor closes.
	KeepDir bool
	// Logf receives progress; nil discards it.
	Logf func(format string, args ...any)
}

// DefaultJitterSpec returns the article's setup: 3 instances, 40 calls/s per caller, 18 s of
// packet loss from 5 s, 30 s after, every caller.
func DefaultJitterSpec() JitterSpec {
	return JitterSpec{Fault: FaultBlackhole, Service: "svc", Instances: 3, Callers: CallerNames(), Rate: 40, CallTimeout: time.Second,
		Warmup: 5 * time.Second, Jitter: 18 * time.Second, After: 30 * time.Second, JVMStart: 60 * time.Second,
		Sample: 20 * time.Millisecond}
}

// Validate reports the first setting out of range, quoting it.
func (s JitterSpec) Validate() error {
	switch {
	case s.Fault != FaultBlackhole && s.Fault != FaultEmpty:
		return fmt.Errorf("JitterSpec.Fault (%q) must be %q or %q", s.Fault, FaultBlackhole, FaultEmpty)
	case s.Service == "":
		return errors.New("JitterSpec.Service is empty")
	case s.Instances < 1 || s.Instances > 50:
		return fmt.Errorf("JitterSpec.Instances (%d) must be within [1, 50]", s.Instances)
	case len(s.Callers) == 0:
		return errors.New("JitterSpec.Callers is empty")
	case s.Warmup <= 0 || s.Jitter <= 0 || s.After <= 0 || s.JVMStart <= 0 || s.Sample <= 0:
		return fmt.Errorf("JitterSpec durations must be positive (Warmup %s, Jitter %s, After %s, JVMStart %s, Sample %s)",
			s.Warmup, s.Jitter, s.After, s.JVMStart, s.Sample)
	}
	for _, n := range s.Callers {
		if _, ok := callerKinds[n]; !ok {
			return fmt.Errorf("JitterSpec.Callers: unknown caller %q (known: %v)", n, KnownCallers())
		}
	}
	if err := s.validateRestart(); err != nil {
		return err
	}
	return CallerSpec{Service: s.Service, Rate: s.Rate, Start: time.Unix(0, 0), End: time.Unix(1, 0), CallTimeout: s.CallTimeout}.Validate()
}

// JitterResult is what one run recorded.
type JitterResult struct {
	// Fault is the spec's; T0 the callers' first call; FaultAt and HealAt when the fault
	// started and was healed.
	Fault               string
	T0, FaultAt, HealAt time.Time
	// Server is the server's list of the service, sampled over the run.
	Server []Sample
	// ServerLog is what the server's own logs say happened (pushes, disconnects, ejections).
	ServerLog []ServerEvent
	// Callers holds each caller's calls and events, by name.
	Callers map[string]Result
	// Errors holds callers that failed (by name).
	Errors map[string]string
	// Restarts holds each restarted caller's restart, by name (its Callers entry holds both
	// processes' calls and events, the first's before Restart.Killed).
	Restarts map[string]Restart
}

// RunJitter builds the world on server s (instances, links, callers), runs the timeline and
// returns the record. Every process it starts belongs to sup; every link is closed on return.
func RunJitter(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, s *Server, spec JitterSpec) (JitterResult, error) {
	if err := spec.Validate(); err != nil {
		return JitterResult{}, fmt.Errorf("jitter run: %w", err)
	}
	logf := spec.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	dir, err := sup.TempDir("sdchaos-nacos-clients-*", spec.KeepDir)
	if err != nil {
		return JitterResult{}, fmt.Errorf("jitter run: %w", err)
	}
	w := &world{sup: sup, alloc: alloc, server: s, dir: dir, logf: logf, javas: map[string]*JavaCaller{}, callers: map[string]*runCaller{}}
	defer w.close()
	if f, err := os.Create(filepath.Join(dir, "nacos-sdk-go.log")); err == nil {
		SetSDKLog(f)
		defer f.Close()
		defer SetSDKLog(nil)
	}
	if err := w.registerInstances(spec); err != nil {
		return JitterResult{}, fmt.Errorf("jitter run: %w", err)
	}
	return w.run(ctx, spec)
}

// world is one run's clients and links.
type world struct {
	sup    *childproc.Supervisor
	alloc  *ports.Allocator
	server *Server
	dir    string
	logf   func(string, ...any)
	links  []*Link
	regs   []*Registrant
	// callers are the run's callers by name; javas the Java processes by process name (a
	// restarted one's too), guarded by mu (restarted callers start on their own goroutines).
	callers map[string]*runCaller
	// relaunches counts the restarts in flight.
	relaunches sync.WaitGroup
	mu         sync.Mutex
	javas      map[string]*JavaCaller
}

func (w *world) link(name string) (*Link, error) {
	l, err := NewLink(w.alloc, w.server, name)
	if err != nil {
		return nil, err
	}
	w.links = append(w.links, l)
	return l, nil
}

func (w *world) registerInstances(spec JitterSpec) error {
	for i := 0; i < spec.Instances; i++ {
		name := fmt.Sprintf("instance-%d", i)
		l, err := w.link(name)
		if err != nil {
			return err
		}
		ep, err := StartEndpoint(w.alloc, name)
		if err != nil {
			return err
		}
		r, err := Register(GoDefaults(l.Addr(), filepath.Join(w.dir, name)), spec.Service, ep)
		if err != nil {
			ep.Close()
			return err
		}
		w.regs = append(w.regs, r)
	}
	return w.awaitListed(spec)
}

// awaitListed waits up to 10 s for the server to list every instance.
func (w *world) awaitListed(spec JitterSpec) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := w.server.Instances(context.Background(), spec.Service)
		if err == nil && len(list) == spec.Instances {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server lists %d of %d instances after 10 s (%v)", len(list), spec.Instances, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// close ends the world: the registrants and links, then (once every restart in flight has
// returned) the Go callers still running, so that no client writes into the clients' dir after
// the run (the Java callers are the supervisor's to end).
func (w *world) close() {
	for _, r := range w.regs {
		r.Close()
	}
	for _, l := range w.links {
		l.Close()
	}
	w.relaunches.Wait()
	for _, c := range w.callers {
		if c.kind.java == "" && c.kill != nil {
			c.kill()
		}
	}
}
