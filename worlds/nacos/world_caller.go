package nacos

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"sdchaos/history"
)

// worldCaller is one caller of the world: its link, how to start it (again), and its current
// process. It is a caller.Traffic (Run waits for its processes and records how each ended)
// and a fault.Restartable (Kill, Restart).
type worldCaller struct {
	w    *World
	name string
	kind callerKind
	link *Link
	spec CallerSpec
	mu   sync.Mutex
	proc process
	// killed is the process a restart killed, at killedAt; restarted is closed once the next
	// one is started (startErr when it could not be).
	killed    process
	killedAt  time.Time
	restarted chan struct{}
	startErr  error
}

// process is a running caller process of either kind.
type process interface {
	// wait blocks until the process has ended and its output is read, and returns how many
	// lines it printed that were neither a call nor a report, and why it failed.
	wait() (other int, err error)
	// kill ends the process at once and returns once it is gone.
	kill()
}

type javaProcess struct{ *JavaCaller }

func (p javaProcess) wait() (int, error) { err := p.Wait(); return p.Other(), err }
func (p javaProcess) kill()              { p.Kill() }

type goProcess struct{ *GoCaller }

func (p goProcess) wait() (int, error) { p.Wait(); return 0, nil }
func (p goProcess) kill()              { p.Kill() }

// prepareCaller opens the caller's link and launches it gated: a JVM is started and waits,
// once its client is built and warmed up, for its gate; a Go client is built and subscribed.
// Its log keeps what it reports until begin gives it the run's recorder.
func (w *World) prepareCaller(ctx context.Context, name string) (*worldCaller, error) {
	k := callerKinds[name]
	l, err := w.newLink(name)
	if err != nil {
		return nil, err
	}
	c := &worldCaller{w: w, name: name, kind: k, link: l, spec: CallerSpec{Service: w.spec.Service, Rate: w.spec.Rate,
		CallTimeout: w.spec.CallTimeout, Log: NewCallLog(nil, name)}}
	w.callers = append(w.callers, c)
	if c.proc, err = w.launch(ctx, c, c.spec, true); err != nil {
		return nil, err
	}
	return c, nil
}

// waitReady waits until a gated JVM is ready (a Go client is ready once prepared), at most
// patience.
func (c *worldCaller) waitReady(ctx context.Context, patience time.Duration) error {
	j, ok := c.proc.(javaProcess)
	if !ok {
		return nil
	}
	select {
	case <-j.Ready():
		return nil
	default:
	}
	t := time.NewTimer(patience)
	defer t.Stop()
	select {
	case <-j.Ready():
		return nil
	case <-j.Done():
		return fmt.Errorf("%s exited before it was ready: %w", c.name, j.Wait())
	case <-t.C:
		return fmt.Errorf("%s not ready within %s (its log: %s)", c.name, patience, j.LogPath())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// begin gives the caller's log the run's recorder, describes the caller to it, and opens its
// gate: calls due from start, none at or after end.
func (c *worldCaller) begin(rec *history.Recorder, start, end time.Time) error {
	c.spec.Start, c.spec.End = start, end
	c.spec.Log.Attach(rec)
	rec.Describe(c.name, c.kind.info())
	switch p := c.proc.(type) {
	case javaProcess:
		return p.Open(start, end)
	case goProcess:
		p.Begin(c.w.ctx, start, end)
	}
	return nil
}

// launch starts c's process (a JVM) or client (Go) with cs, gated (its calls wait for begin)
// or not (a restart: calls on cs's grid from once it is built). Its files are in the run's dir
// under its name; its disk cache in cache/ there (nacos-sdk-go's CacheDir, nacos-client's
// JM.SNAPSHOT.PATH), the same for both processes of a restarted caller.
func (w *World) launch(ctx context.Context, c *worldCaller, cs CallerSpec, gated bool) (process, error) {
	home := filepath.Join(w.dir, c.name)
	k := c.kind
	if k.java == "" {
		o := GoDefaults(c.link.Addr(), home)
		if k.goJava {
			o = JavaDefaults(c.link.Addr(), home)
		}
		var g *GoCaller
		var err error
		if gated {
			g, err = PrepareGoCaller(o, cs)
		} else {
			g, err = StartGoCaller(ctx, o, cs)
		}
		if err != nil {
			return nil, err
		}
		return goProcess{g}, nil
	}
	name := c.name
	if cs.Restarted {
		name += "-restarted"
	}
	j, err := StartJavaCaller(ctx, w.sup, JavaCallerSpec{Name: name, Mode: k.java, Server: c.link.Addr(), CallerSpec: cs,
		LoadCacheAtStart: k.cacheAtStart, PushEmptyProtection: k.protect, StaleFallback: k.fallback, Home: home,
		SnapshotPath: filepath.Join(home, "cache"), Gated: gated})
	if err != nil {
		return nil, err
	}
	w.spec.Logf("started %s (pid %d, log %s)", name, j.Pid(), j.LogPath())
	return javaProcess{j}, nil
}

// Name returns the caller's name (a fault's target).
func (c *worldCaller) Name() string { return c.name }

// Run waits for the caller's process, and after a restart for the next one, recording how each
// ended (history.OpExit); when ctx ends it kills the process and returns ctx's error.
func (c *worldCaller) Run(ctx context.Context, _ *history.Recorder, _ time.Duration) error {
	for {
		c.mu.Lock()
		p := c.proc
		c.mu.Unlock()
		other, err := waitOrKill(ctx, p)
		c.mu.Lock()
		killed, at, next := c.killed == p, c.killedAt, c.restarted
		c.mu.Unlock()
		if !killed {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			c.spec.Log.exit(time.Now(), other, "", err)
			return nil
		}
		c.spec.Log.exit(at, other, history.ExitKilled, nil) // a killed process exits with its signal: not the caller's error
		select {
		case <-next:
		case <-ctx.Done():
			return ctx.Err()
		}
		c.mu.Lock()
		serr := c.startErr
		c.mu.Unlock()
		if serr != nil {
			c.spec.Log.exit(time.Now(), 0, "", fmt.Errorf("restarting: %w", serr))
			return nil
		}
	}
}

// waitOrKill waits for p to end, killing it if ctx ends first.
func waitOrKill(ctx context.Context, p process) (int, error) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			p.kill()
		case <-done:
		}
	}()
	return p.wait()
}

// Kill ends the caller's process at once (a restart's first half).
func (c *worldCaller) Kill() {
	c.mu.Lock()
	p := c.proc
	c.killed, c.killedAt, c.restarted = p, time.Now(), make(chan struct{})
	c.mu.Unlock()
	p.kill()
}

// Restart starts the caller again (Restarted: its setup tried once, its calls from the first
// due once it is built) on the disk cache its first process left; it returns once the process
// is started (a Go client: once built, which waits for its start-up connection attempts).
func (c *worldCaller) Restart(context.Context) error {
	cs := c.spec
	cs.Restarted = true
	p, err := c.w.launch(c.w.ctx, c, cs, false)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.proc = p
	}
	c.startErr = err
	if c.restarted != nil {
		close(c.restarted)
	}
	return err
}

// stop kills the caller's current process (at Close: a Go client must not write into the
// clients' directory after the run; a JVM would be the supervisor's to end anyway).
func (c *worldCaller) stop() {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p != nil {
		p.kill()
	}
}
