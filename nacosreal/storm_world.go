package nacosreal

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"sdchaos/clock"
	"sdchaos/ports"
)

// listPatience bounds the wait for the server to list every instance after they registered.
const listPatience = 30 * time.Second

// stormWorld is one storm phase's instances and links.
type stormWorld struct {
	server *Server
	dir    string
	spec   StormSpec
	logf   func(string, ...any)
	links  []*Link
	eps    []*Endpoint
	// regs holds the registrants by instance (nil where the registration failed).
	regs []*Registrant
	res  StormResult
}

// build opens every link and endpoint, then registers the instances, spec.Parallel at once.
func (w *stormWorld) build(ctx context.Context, links, endpoints *ports.Allocator) error {
	n := w.spec.Instances
	for i := 0; i < n; i++ {
		l, err := NewLink(links, w.server, instanceName(i))
		if err != nil {
			return err
		}
		w.links = append(w.links, l)
		ep, err := StartEndpoint(endpoints, instanceName(i))
		if err != nil {
			return err
		}
		w.eps = append(w.eps, ep)
	}
	w.regs, w.res.Registrations = make([]*Registrant, n), make([]Registration, n)
	w.registerAll(ctx)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("registering the instances: %w", err)
	}
	w.logf("registered %d instances (%d at once)", n, w.spec.Parallel)
	return nil
}

// instanceName names instance i as the storm's events do.
func instanceName(i int) string { return fmt.Sprintf("instance-%d", i) }

// registerAll registers every instance on its own client and link, spec.Parallel at once;
// once ctx ends it starts no more.
func (w *stormWorld) registerAll(ctx context.Context) {
	sem := make(chan struct{}, w.spec.Parallel)
	var wg sync.WaitGroup
	for i := range w.links {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			rg := Registration{Start: time.Now()}
			if err := ctx.Err(); err != nil {
				rg.End, rg.Err = rg.Start, err.Error()
				w.res.Registrations[i] = rg
				return
			}
			r, err := Register(GoDefaults(w.links[i].Addr(), filepath.Join(w.dir, instanceName(i))), w.spec.Service, w.eps[i])
			rg.End = time.Now()
			if err != nil {
				rg.Err = err.Error()
			}
			w.regs[i], w.res.Registrations[i] = r, rg
		}(i)
	}
	wg.Wait()
}

// run waits for the server to list every instance, then runs the phase's timeline with the
// list and the server sampled throughout.
func (w *stormWorld) run(ctx context.Context) (StormResult, error) {
	w.res.Listed = w.awaitListed(ctx)
	if w.res.Listed.IsZero() {
		w.res.Listed = time.Now()
	}
	faultAt := w.res.Listed.Add(w.spec.Warmup)
	end := faultAt.Add(w.spec.Loss + w.lastDelay() + w.spec.After)
	wctx, stop := context.WithDeadline(ctx, end)
	defer stop()
	watch := w.server.Watch(wctx, w.spec.Service, w.spec.Sample)
	probes := w.server.probeLoop(wctx, w.spec.Probe)
	err := w.timeline(ctx, faultAt)
	if err == nil {
		err = clock.SleepUntil(ctx, end)
	}
	w.res.End = time.Now()
	stop()
	w.res.Server, w.res.Probes = watch.Wait(), probes()
	if err != nil {
		return w.res, fmt.Errorf("storm phase: %w", err)
	}
	evs, err := w.server.Events()
	w.res.ServerLog = evs
	return w.res, err
}

// awaitListed polls the server until it lists every instance (at most listPatience); zero
// when it never did.
func (w *stormWorld) awaitListed(ctx context.Context) time.Time {
	deadline := time.Now().Add(listPatience)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if list, err := w.server.Instances(ctx, w.spec.Service); err == nil && len(list) == w.spec.Instances {
			return time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.logf("the server did not list every instance within %s", listPatience)
	return time.Time{}
}

// lastDelay is the longest heal delay.
func (w *stormWorld) lastDelay() time.Duration {
	var d time.Duration
	for _, x := range w.spec.HealDelays {
		d = max(d, x)
	}
	return d
}

// timeline blackholes every link at faultAt and heals each at the end of the loss plus its
// delay, in delay order; every link not yet healed is healed on return, whatever failed.
func (w *stormWorld) timeline(ctx context.Context, faultAt time.Time) error {
	if err := clock.SleepUntil(ctx, faultAt); err != nil {
		return err
	}
	w.res.HealAt, w.res.HealErrs = make([]time.Time, len(w.links)), map[int]string{}
	defer w.healRest()
	w.res.FaultAt = time.Now()
	for i, l := range w.links {
		if err := l.Blackhole(); err != nil {
			return fmt.Errorf("blackholing %s: %w", instanceName(i), err)
		}
	}
	w.logf("every link (%d) blackholed", len(w.links))
	healFrom := w.res.FaultAt.Add(w.spec.Loss)
	for _, i := range w.healOrder() {
		if err := clock.SleepUntil(ctx, healFrom.Add(w.delay(i))); err != nil {
			return err
		}
		w.heal(i)
	}
	w.logf("every link healed (the last %.2f s after the first)", w.lastDelay().Seconds())
	return nil
}

// healOrder is the instances sorted by heal delay.
func (w *stormWorld) healOrder() []int {
	order := make([]int, len(w.links))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return w.delay(order[a]) < w.delay(order[b]) })
	return order
}

func (w *stormWorld) delay(i int) time.Duration {
	if w.spec.HealDelays == nil {
		return 0
	}
	return w.spec.HealDelays[i]
}

func (w *stormWorld) heal(i int) {
	if err := w.links[i].Heal(); err != nil {
		w.res.HealErrs[i] = err.Error()
	}
	w.res.HealAt[i] = time.Now()
}

// healRest heals every link not yet healed (an interrupted phase).
func (w *stormWorld) healRest() {
	for i := range w.links {
		if w.res.HealAt[i].IsZero() {
			w.heal(i)
		}
	}
}

// close closes every client, endpoint and link.
func (w *stormWorld) close() {
	var wg sync.WaitGroup
	for _, r := range w.regs {
		if r != nil {
			wg.Add(1)
			go func() { defer wg.Done(); r.client.CloseClient() }()
		}
	}
	wg.Wait()
	for _, ep := range w.eps {
		_ = ep.Close()
	}
	for _, l := range w.links {
		l.Close()
	}
}
