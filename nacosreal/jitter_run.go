package nacosreal

import (
	"context"
	"fmt"
	"path/filepath"
	"sdchaos/clock"
	"sort"
	"time"
)

// callerKind is one caller of the jitter run: a Java mode with switches, or the Go SDK with
// options.
type callerKind struct {
	java                            JavaMode
	protect, fallback, cacheAtStart bool
	goJava                          bool // Go SDK in Java's defaults (else the SDK's own)
	// cacheOnly marks a caller that differs from another only by loading its disk cache at
	// start: it is not among CallerNames (without a restart it behaves as its twin).
	cacheOnly bool
}

var callerKinds = map[string]callerKind{
	"spring":          {java: Spring},
	"spring-fallback": {java: Spring, fallback: true},
	"plain":           {java: Plain},
	"plain-protect":   {java: Plain, protect: true},
	"go-sdk":          {},
	"go-java-default": {goJava: true},
	"spring-cache":    {java: Spring, cacheAtStart: true, cacheOnly: true},
	"plain-cache":     {java: Plain, cacheAtStart: true, cacheOnly: true},
}

// CallerNames returns the jitter run's default callers: spring (Spring Cloud Alibaba +
// LoadBalancer at their defaults, the incident's configuration), spring-fallback (the same with
// the fallback to the last non-empty list), plain and plain-protect (nacos-client with
// namingPushEmptyProtection off and on), go-sdk (nacos-sdk-go at its defaults) and
// go-java-default (nacos-sdk-go with Java's defaults).
func CallerNames() []string { return callerNames(false) }

// KnownCallers returns every caller a JitterSpec may name: CallerNames, and spring-cache and
// plain-cache (spring and plain with namingLoadCacheAtStart on: Spring Cloud Alibaba's
// naming-load-cache-at-start; they differ from their twins only when restarted).
func KnownCallers() []string { return callerNames(true) }

func callerNames(all bool) []string {
	names := make([]string, 0, len(callerKinds))
	for n, k := range callerKinds {
		if all || !k.cacheOnly {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// waiter is a running caller of either kind.
type waiter func() (Result, error)

func (w *world) run(ctx context.Context, spec JitterSpec) (JitterResult, error) {
	t0 := time.Now().Add(spec.JVMStart)
	end := t0.Add(spec.Warmup + spec.Jitter + spec.After)
	res := JitterResult{Fault: spec.Fault, T0: t0, Callers: map[string]Result{}, Errors: map[string]string{}, Restarts: map[string]Restart{}}
	if err := w.startCallers(ctx, spec, t0, end); err != nil {
		return res, err
	}
	wctx, stop := context.WithDeadline(ctx, end.Add(2*time.Second))
	defer stop()
	watch := w.server.Watch(wctx, spec.Service, spec.Sample)
	if err := w.fault(ctx, spec, &res); err != nil {
		return res, err
	}
	for name, c := range w.callers {
		r, err := c.result()
		res.Callers[name] = r
		if err != nil {
			res.Errors[name] = err.Error()
		}
		if c.restart != nil {
			res.Restarts[name] = *c.restart
		}
	}
	res.Server = watch.Wait()
	var err error
	if res.ServerLog, err = w.server.Events(); err != nil {
		return res, err
	}
	return res, nil
}

func (w *world) startCallers(ctx context.Context, spec JitterSpec, t0, end time.Time) error {
	for _, name := range spec.Callers {
		l, err := w.link(name)
		if err != nil {
			return err
		}
		c := &runCaller{name: name, kind: callerKinds[name], link: l,
			spec: CallerSpec{Service: spec.Service, Rate: spec.Rate, Start: t0, End: end, CallTimeout: spec.CallTimeout}}
		if err := w.launch(ctx, c, c.spec); err != nil {
			return fmt.Errorf("starting caller %s: %w", name, err)
		}
		w.callers[name] = c
	}
	return nil
}

// launch starts c's process (a JVM) or client (Go) with cs, and sets its wait and kill. Its
// files are in the run's dir under its name; its disk cache in cache/ there (nacos-sdk-go's
// CacheDir, nacos-client's JM.SNAPSHOT.PATH), the same for both processes of a restarted caller.
func (w *world) launch(ctx context.Context, c *runCaller, cs CallerSpec) error {
	home := filepath.Join(w.dir, c.name)
	k := c.kind
	if k.java == "" {
		o := GoDefaults(c.link.Addr(), home)
		if k.goJava {
			o = JavaDefaults(c.link.Addr(), home)
		}
		g, err := StartGoCaller(ctx, o, cs)
		if err != nil {
			return err
		}
		c.wait, c.kill = func() (Result, error) { return g.Wait(), nil }, g.Kill
		return nil
	}
	name := c.name
	if cs.Restarted {
		name += "-restarted"
	}
	j, err := StartJavaCaller(ctx, w.sup, JavaCallerSpec{Name: name, Mode: k.java, Server: c.link.Addr(), CallerSpec: cs,
		LoadCacheAtStart: k.cacheAtStart, PushEmptyProtection: k.protect, StaleFallback: k.fallback, Home: home, SnapshotPath: filepath.Join(home, "cache")})
	if err != nil {
		return err
	}
	c.wait, c.kill = j.Wait, j.Kill
	w.mu.Lock()
	w.javas[name] = j
	w.mu.Unlock()
	w.logf("started %s (pid %d, log %s)", name, j.Pid(), j.LogPath())
	return nil
}

// fault starts spec.Fault Warmup after t0 and heals it Jitter later; the heal always runs.
func (w *world) fault(ctx context.Context, spec JitterSpec, res *JitterResult) error {
	if err := clock.SleepUntil(ctx, res.T0.Add(spec.Warmup)); err != nil {
		return err
	}
	w.logRSS()
	inject, heal := w.blackhole, w.healLinks
	if spec.Fault == FaultEmpty {
		inject, heal = w.deregister, w.reregister
	}
	res.FaultAt = time.Now()
	defer func() {
		if err := heal(); err != nil {
			w.logf("healing: %v", err)
		}
		res.HealAt = time.Now()
		w.logf("healed (%s) at t=%.2f s", spec.Fault, res.HealAt.Sub(res.T0).Seconds())
	}()
	if err := inject(); err != nil {
		return fmt.Errorf("injecting %s: %w", spec.Fault, err)
	}
	w.logf("%s from t=%.2f s", spec.Fault, res.FaultAt.Sub(res.T0).Seconds())
	if len(spec.Restart) > 0 {
		if err := clock.SleepUntil(ctx, res.T0.Add(spec.RestartAt)); err != nil {
			return err
		}
		w.restartCallers(ctx, spec.Restart)
	}
	return clock.SleepUntil(ctx, res.FaultAt.Add(spec.Jitter))
}

func (w *world) blackhole() error {
	for _, l := range w.links {
		if err := l.Blackhole(); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) healLinks() error {
	var first error
	for _, l := range w.links {
		if err := l.Heal(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (w *world) deregister() error {
	for _, r := range w.regs {
		if err := r.Deregister(); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) reregister() error {
	var first error
	for _, r := range w.regs {
		if err := r.Reregister(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// logRSS logs each JVM's resident set size.
func (w *world) logRSS() {
	if n, err := w.server.RSS(); err == nil {
		w.logf("RSS %s %d MiB", w.server.Name(), n>>20)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, c := range w.javas {
		if n, err := c.RSS(); err == nil {
			w.logf("RSS %s %d MiB", name, n>>20)
		}
	}
}
