// Package rig is the one run path and the seam every world implements, and
// it names no world: a World (rig/world.go) starts what an experiment asks
// for, hands Run its traffic and its timeline of fault values, and records
// what only it can see; a Registry (rig/registry.go) is a world that runs
// the experiments written as data, registered by its own package (worlds/
// <name>) in its init. Env is what a run gets: its settings, its seeded
// random source, the supervisor that owns every child process and temp dir,
// and a registry the harness did not start (Attach). Everything a run
// starts belongs to its Env and is released by Env.Close, whatever happened.
package rig

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/history"
	"sdchaos/netns"
)

// Env is what a running scenario gets: the run's settings, its only random
// source (seeded from --seed), a logger and a progress writer (stderr), and
// the supervisor that owns every child process and temp dir of the run.
type Env struct {
	// Duration is the length of the measured timeline.
	Duration time.Duration
	// PortBase is the first port the run may listen on (127.0.0.1 only).
	PortBase int
	// Keep keeps the run's temp dir (the servers' data dirs and logs).
	Keep bool
	// Rand is the run's only random source.
	Rand *rand.Rand
	// Log receives diagnostics; never nil.
	Log *slog.Logger
	// Progress receives human progress lines (stderr); never nil.
	Progress io.Writer
	// Quiet turns the live progress lines off.
	Quiet bool
	// Net is the run's network: Loopback (default) or Private.
	Net Net
	// Attach, when set, is a registry the harness did not start that the
	// run attaches to instead of starting one (a world that can attach:
	// see Attacher).
	Attach *Target
	// TargetVersion is the version of the attached registry's servers, as
	// they report it (set by the world once it attached).
	TargetVersion string

	seed    int64 // the run's seed, for draws that must not depend on the world's order of draws
	supMu   sync.Mutex
	sup     *childproc.Supervisor
	closers []func()
	healErr error // a heal that failed at Close (a fault may be left in place)
	filter  *netns.Filter
	rec     *history.Recorder // the run's recorder, for ops recorded outside the traffic
	world   history.World     // the real systems the run's worlds described
}

// Describe records what a world of the run ran (its server, components,
// settings and constants) for the run's metadata; safe for concurrent use.
func (e *Env) Describe(w history.World) {
	e.supMu.Lock()
	e.world.Add(w)
	e.supMu.Unlock()
}

// World returns what the run's worlds described so far.
func (e *Env) World() history.World {
	e.supMu.Lock()
	defer e.supMu.Unlock()
	var w history.World
	w.Add(e.world)
	return w
}

// AddCloser runs f at Close (before the processes are stopped).
func (e *Env) AddCloser(f func()) {
	e.supMu.Lock()
	e.closers = append(e.closers, f)
	e.supMu.Unlock()
}

// NewEnv returns an Env with a PCG source seeded from seed; nil log and
// progress discard their output.
func NewEnv(seed int64, d time.Duration, portBase int, keep bool, log *slog.Logger, progress io.Writer) *Env {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if progress == nil {
		progress = io.Discard
	}
	return &Env{Duration: d, PortBase: portBase, Keep: keep, Rand: rand.New(rand.NewPCG(uint64(seed), randStream)), seed: seed,
		Log: log, Progress: progress, Net: Loopback}
}

// Supervisor returns the run's process supervisor, starting it on first use.
// Every child process and temp dir of the run goes through it, so Close
// cleans up whatever a scenario leaves.
func (e *Env) Supervisor() (*childproc.Supervisor, error) {
	e.supMu.Lock()
	defer e.supMu.Unlock()
	if e.sup == nil {
		s, err := childproc.NewSupervisor(e.Log)
		if err != nil {
			return nil, fmt.Errorf("starting the process supervisor: %w", err)
		}
		e.sup = s
	}
	return e.sup, nil
}

// Close kills every child process of the run, removes its temp dirs
// (unless Keep) and deletes its packet filter; on an external cluster it
// runs every pending nemesis heal and removes the run's keys and leases
// first, and returns an error if a heal failed. It is safe to call more
// than once, from any goroutine.
func (e *Env) Close() error {
	e.supMu.Lock()
	s, closers, f := e.sup, e.closers, e.filter
	e.closers = nil
	e.supMu.Unlock()
	for _, c := range closers {
		c()
	}
	e.supMu.Lock()
	err := e.healErr
	e.healErr = nil
	e.supMu.Unlock()
	if s != nil {
		if serr := s.Close(); err == nil {
			err = serr
		}
	}
	if f != nil {
		if ferr := f.Close(); err == nil {
			err = ferr
		}
	}
	return err
}

// Printf writes one progress line to Progress (stderr in the command).
func (e *Env) Printf(format string, a ...any) {
	fmt.Fprintf(e.Progress, "  · "+format+"\n", a...)
}

// HealFailed records a heal that failed at clean-up (a fault may be left in
// place on a registry the harness did not start): Close then returns it.
func (e *Env) HealFailed(err error) {
	e.supMu.Lock()
	if e.healErr == nil {
		e.healErr = err
	}
	e.supMu.Unlock()
}

// SetRecorder makes rec the run's recorder for what is recorded outside
// the traffic (a nemesis command's op).
func (e *Env) SetRecorder(rec *history.Recorder) {
	e.supMu.Lock()
	e.rec = rec
	e.supMu.Unlock()
}

// Recorder returns the run's recorder set by SetRecorder (nil before).
func (e *Env) Recorder() *history.Recorder {
	e.supMu.Lock()
	defer e.supMu.Unlock()
	return e.rec
}

// randStream is the PCG stream of the run's random source.
const randStream = 0x5d5c4a05

// CallerPhase is the refresh phase every policy caller of the run shares,
// in [0, DefaultRefresh): the first draw of a source seeded as Rand is, and
// apart from it, so that one seed gives every world the same phase whatever
// else a world draws, and in whichever order (the registry matrix compares
// worlds run with one seed).
func (e *Env) CallerPhase() time.Duration {
	return time.Duration(rand.New(rand.NewPCG(uint64(e.seed), randStream)).Int64N(int64(DefaultRefresh)))
}
