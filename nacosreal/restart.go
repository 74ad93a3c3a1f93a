package nacosreal

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Restart is what a caller's restart did: Killed is when its first process was killed (a JVM
// SIGKILLed, a Go client stopped and closed, its calls in flight dropped), Launched when its
// second was started (on the same disk cache), Err why the second could not be started ("" when
// it was).
type Restart struct {
	Killed, Launched time.Time
	Err              string
}

// runCaller is one caller of a jitter run: how to start it again, how to wait for it and kill
// it, and, once restarted, its first process's record and its restart.
type runCaller struct {
	name string
	kind callerKind
	link *Link
	spec CallerSpec
	wait waiter
	kill func()
	// before is the killed process's record; relaunched is closed once the second process is
	// started (or could not be: restart.Err).
	before     *Result
	restart    *Restart
	relaunched chan struct{}
}

// validateRestart checks Restart and RestartAt.
func (s JitterSpec) validateRestart() error {
	if len(s.Restart) == 0 {
		return nil
	}
	if s.RestartAt <= s.Warmup || s.RestartAt >= s.Warmup+s.Jitter {
		return fmt.Errorf("JitterSpec.RestartAt (%s) must be inside the fault (%s, %s)", s.RestartAt, s.Warmup, s.Warmup+s.Jitter)
	}
	for _, n := range s.Restart {
		if !slices.Contains(s.Callers, n) {
			return fmt.Errorf("JitterSpec.Restart: %q is not one of the run's callers %v", n, s.Callers)
		}
	}
	return nil
}

// restartCallers kills every named caller at once, then starts each again (its Restarted spec,
// on its own goroutine: a client built while the server is unreachable blocks in its start-up
// connection attempts).
func (w *world) restartCallers(ctx context.Context, names []string) {
	var wg sync.WaitGroup
	for _, n := range names {
		c := w.callers[n]
		wg.Add(1)
		go func() { defer wg.Done(); c.stop() }()
	}
	wg.Wait()
	for _, n := range names {
		c := w.callers[n]
		c.restart.Launched = time.Now()
		w.relaunches.Add(1)
		go w.relaunch(ctx, c)
	}
	w.logf("restarted %v at t=%s", names, time.Now().Format("15:04:05.000"))
}

// stop kills c's process and keeps its record.
func (c *runCaller) stop() {
	c.restart, c.relaunched = &Restart{Killed: time.Now()}, make(chan struct{})
	c.kill()
	r, _ := c.wait() // a killed process exits with its signal: not the caller's error
	c.before = &r
}

// relaunch starts c's second process with Restarted set.
func (w *world) relaunch(ctx context.Context, c *runCaller) {
	defer w.relaunches.Done()
	defer close(c.relaunched)
	cs := c.spec
	cs.Restarted = true
	if err := w.launch(ctx, c, cs); err != nil {
		c.restart.Err = err.Error()
		w.logf("restarting %s: %v", c.name, err)
	}
}

// result waits for c and returns its whole record: for a restarted caller the killed process's
// calls and events followed by the second's.
func (c *runCaller) result() (Result, error) {
	if c.relaunched == nil {
		return c.wait()
	}
	<-c.relaunched
	if c.restart.Err != "" {
		return *c.before, fmt.Errorf("%s: restarting: %s", c.name, c.restart.Err)
	}
	r, err := c.wait()
	merged := Result{Calls: append(append([]Call(nil), c.before.Calls...), r.Calls...),
		Events: append(append([]Event(nil), c.before.Events...), r.Events...), Other: c.before.Other + r.Other}
	return merged, err
}
