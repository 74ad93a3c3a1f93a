package storm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
)

// FleetConfig describes the registrants.
type FleetConfig struct {
	// N registrants; PerClient of them share one gRPC connection (1 = each
	// its own connection, as pods would have).
	N, PerClient int
	// Endpoints are dialled round-robin: connection i goes to
	// Endpoints[i % len].
	Endpoints []string
	// Prefix of the keys (<Prefix><i>).
	Prefix string
	// TTL of each lease, Renew its renewal interval, Timeout of each call.
	TTL, Renew, Timeout time.Duration
	// Conn says how every connection dials: from which local address, with
	// which TLS and etcd auth (ConnOptions gives the run's).
	Conn fakeservice.H2Options
}

// ConnOptions returns the connections' options for the run's client
// settings (etcdcli.Current: the TLS and etcd user of a cluster the
// harness did not start), dialling from src when it is valid.
func ConnOptions(src netip.Addr) fakeservice.H2Options {
	s := etcdcli.Current()
	o := fakeservice.H2Options{Source: src, TLS: s.TLS}
	if s.Username != "" {
		o.Auth = fakeservice.NewAuth(s.Username, s.Password)
	}
	return o
}

// Fleet is N lean registrants (etcd's gRPC API over a minimal HTTP/2
// connection each: the harness's cost per registrant stays small next to
// the registry's),
// renewing while the link is up.
type Fleet struct {
	cfg   FleetConfig
	idx   []int // idx[j]: registrant j's index in the whole fleet
	conns []*fakeservice.H2Conn
	regs  []*fakeservice.LeanRegistrant
	log   *Log
	live  []atomic.Bool // live[i]: registrant i holds a registration it renews
	// paused[i]: registrant i's renewals wait for it to be live again
	// (they stop at a tick that finds it not live), from tick[i] (Unix ns
	// of its last renewal time: the phase they resume on).
	paused []atomic.Bool
	tick   []atomic.Int64
	ctx    context.Context // ends at Close: the renewals stop
	// rctx[i] is registrant i's child of ctx: a call's deadline registers
	// with it, not with one context shared by the whole fleet (whose list
	// of children thousands of calls at once would keep rewriting).
	rctx  []context.Context
	stop  context.CancelFunc
	renew *schedule // each registrant's next renewal
	close sync.Once
	mu    sync.Mutex
	rereg *rereg // the current re-registration, if any
}

// NewFleet creates the connections and registrants (no call is made yet).
// Registrant i holds key <Prefix><i> (six digits).
func NewFleet(cfg FleetConfig, log *Log) (*Fleet, error) {
	return NewFleetOf(cfg, log, nil)
}

// NewFleetOf is NewFleet for the registrants whose index keep accepts
// (all when keep is nil): a shard's slice of the fleet. Keys keep their
// index in the whole fleet, so shards never collide.
func NewFleetOf(cfg FleetConfig, log *Log, keep func(i int) bool) (*Fleet, error) {
	f := &Fleet{cfg: cfg, log: log}
	f.ctx, f.stop = context.WithCancel(context.Background())
	var idx []int
	for i := 0; i < cfg.N; i++ {
		if keep == nil || keep(i) {
			idx = append(idx, i)
		}
	}
	nConns := (len(idx) + cfg.PerClient - 1) / cfg.PerClient
	for i := 0; i < nConns; i++ {
		f.conns = append(f.conns, fakeservice.NewH2ConnWith(cfg.Endpoints[i%len(cfg.Endpoints)], cfg.Conn))
	}
	for j, i := range idx {
		key := fmt.Sprintf("%s%06d", cfg.Prefix, i)
		f.regs = append(f.regs, fakeservice.NewLeanRegistrant(f.conns[j/cfg.PerClient], key, "127.0.0.1:0", cfg.TTL, cfg.Timeout, log.Observe))
	}
	f.idx, f.live, f.renew = idx, make([]atomic.Bool, len(f.regs)), newSchedule(len(f.regs))
	f.paused, f.tick = make([]atomic.Bool, len(f.regs)), make([]atomic.Int64, len(f.regs))
	var stopChildren func()
	f.rctx, stopChildren = children(f.ctx, len(f.regs))
	f.stop = both(f.stop, stopChildren)
	return f, nil
}

// Clients returns the number of gRPC connections of the fleet.
func (f *Fleet) Clients() int { return len(f.conns) }

// Size returns how many registrants the fleet drives.
func (f *Fleet) Size() int { return len(f.regs) }

// RegisterMissing registers every registrant that holds no live
// registration, at most conc at a time, and returns how many hold one
// afterwards. A registration that fails is left for the next call.
func (f *Fleet) RegisterMissing(ctx context.Context, conc int) int {
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for i, r := range f.regs {
		if f.live[i].Load() {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if r.Register(ctx) == nil {
				f.setLive(i)
			}
		}()
	}
	wg.Wait()
	return f.Live()
}

// Live returns how many registrants hold a registration they renew.
func (f *Fleet) Live() int {
	n := 0
	for i := range f.live {
		if f.live[i].Load() {
			n++
		}
	}
	return n
}

// draws returns one draw of r for every registrant of the whole fleet
// (cfg.N), indexed by this fleet's registrants: a registrant gets the
// same draw whether it runs alone or in a shard.
func (f *Fleet) draws(r *rand.Rand, draw func(*rand.Rand) uint64) []uint64 {
	all := make([]uint64, f.cfg.N)
	for i := range all {
		all[i] = draw(r)
	}
	out := make([]uint64, len(f.idx))
	for j, i := range f.idx {
		out[j] = all[i]
	}
	return out
}

// StartRenewing makes every registrant renew every Renew (from a random
// phase) while the link is up, and register again when its lease is gone.
// A registrant waiting for its renewal holds a timer, not a goroutine.
func (f *Fleet) StartRenewing(r *rand.Rand) {
	phases := f.draws(r, func(r *rand.Rand) uint64 { return uint64(r.Int64N(int64(f.cfg.Renew))) })
	now := time.Now()
	for i := range f.regs {
		f.renewAt(i, now.Add(time.Duration(phases[i])))
	}
}

// renewAt renews registrant i at t and schedules its next renewal Renew
// after t (at once when the renewal took longer). A tick that finds the
// registrant not live (its link is down, it is not registered yet) pauses
// its renewals until setLive: 5000 registrants ticking through a 40 s
// outage were 60 000 wake-ups for nothing.
func (f *Fleet) renewAt(i int, t time.Time) {
	f.tick[i].Store(t.UnixNano())
	f.renew.at(i, t, func() {
		reg, live := f.regs[i], &f.live[i]
		if !live.Load() {
			f.paused[i].Store(true)
			if live.Load() && f.paused[i].CompareAndSwap(true, false) { // setLive came in between
				f.resume(i)
			}
			return
		}
		if err := reg.Renew(f.rctx[i]); errors.Is(err, fakeservice.ErrLeaseGone) && live.Load() {
			_ = reg.Register(f.rctx[i])
		}
		f.renewAt(i, t.Add(f.cfg.Renew))
	})
}

// setLive marks registrant i live and resumes its renewals if they paused.
func (f *Fleet) setLive(i int) {
	f.live[i].Store(true)
	if f.paused[i].CompareAndSwap(true, false) {
		f.resume(i)
	}
}

// resume schedules registrant i's next renewal on its phase: the first
// tick after now of its last renewal time plus whole periods.
func (f *Fleet) resume(i int) {
	last, period := time.Unix(0, f.tick[i].Load()), f.cfg.Renew
	k := (time.Since(last) + period - 1) / period
	f.renewAt(i, last.Add(k*period))
}

// LinkDown tells the registrants their connection is gone (as a client's
// connection-state watcher would): they stop renewing.
func (f *Fleet) LinkDown() {
	for i := range f.live {
		f.live[i].Store(false)
	}
}

// rereg is one re-registration after the link returned.
type rereg struct {
	t0      time.Time
	cancel  context.CancelFunc
	sched   *schedule // each registrant's next attempt
	left    atomic.Int64
	allDone chan struct{} // closed when left reaches 0
	done    atomic.Int64
	last    atomic.Int64 // ns after t0
	late    Lateness     // how late the attempts started
}

// settled counts one registrant back (or given up) and closes allDone after the last.
func (rr *rereg) settled() {
	if rr.left.Add(-1) == 0 {
		close(rr.allDone)
	}
}

// LinkUp tells the registrants their connection is back (as a client's
// connection-state watcher would): each one re-registers in the background,
// waiting b.Delay(k) before attempt k, until it succeeds or Back gives up.
// Renewals resume as each registrant succeeds. The log is armed now.
func (f *Fleet) LinkUp(b Backoff, r *rand.Rand) {
	seeds := f.draws(r, (*rand.Rand).Uint64)
	ctx, cancel := context.WithCancel(context.Background())
	ctxs, cancelChildren := children(ctx, len(f.regs))
	rr := &rereg{t0: time.Now(), cancel: both(cancel, cancelChildren), sched: newSchedule(len(f.regs)), allDone: make(chan struct{})}
	rr.sched.late = &rr.late
	rr.left.Store(int64(len(f.regs)))
	if len(f.regs) == 0 {
		close(rr.allDone)
	}
	f.mu.Lock()
	f.rereg = rr
	f.mu.Unlock()
	f.log.Arm(rr.t0)
	for i := range f.regs {
		f.attempt(ctxs[i], rr, i, b, rand.New(rand.NewPCG(seeds[i], uint64(f.idx[i]))), 0)
	}
}

// attempt schedules registrant i's attempt k after its back-off delay; a
// failed attempt schedules the next one, until ctx ends.
func (f *Fleet) attempt(ctx context.Context, rr *rereg, i int, b Backoff, r *rand.Rand, k int) {
	rr.sched.at(i, time.Now().Add(b.Delay(k, r)), func() {
		if ctx.Err() != nil {
			rr.settled()
			return
		}
		if f.regs[i].Register(ctx) != nil {
			f.attempt(ctx, rr, i, b, r, k+1)
			return
		}
		f.setLive(i)
		rr.done.Add(1)
		at := int64(time.Since(rr.t0))
		for old := rr.last.Load(); at > old && !rr.last.CompareAndSwap(old, at); old = rr.last.Load() {
		}
		rr.settled()
	})
}

// children returns n children of ctx and a function that ends them (as
// ending ctx does).
func children(ctx context.Context, n int) ([]context.Context, func()) {
	out, cancels := make([]context.Context, n), make([]context.CancelFunc, n)
	for i := range out {
		out[i], cancels[i] = context.WithCancel(ctx)
	}
	return out, func() {
		for _, c := range cancels {
			c()
		}
	}
}

// both returns a function that calls a, then b.
func both(a, b func()) func() { return func() { a(); b() } }

// Back waits until every registrant is registered again or ctx ends (the
// others then give up), disarms the log, and returns how many came back and
// when the last one did, from LinkUp. It returns 0, 0 without a LinkUp.
func (f *Fleet) Back(ctx context.Context) (int, time.Duration) {
	f.mu.Lock()
	rr := f.rereg
	f.mu.Unlock()
	if rr == nil {
		return 0, 0
	}
	select {
	case <-rr.allDone:
	case <-ctx.Done():
	}
	rr.cancel()
	rr.sched.stop()
	f.log.Disarm()
	return int(rr.done.Load()), time.Duration(rr.last.Load())
}

// Lateness returns how late the last re-registration's attempts started
// after the time their back-off asked for (the harness's own delay; the
// schedule's 10 ms grid included): zero without a LinkUp.
func (f *Fleet) Lateness() LateStats {
	f.mu.Lock()
	rr := f.rereg
	f.mu.Unlock()
	if rr == nil {
		return LateStats{}
	}
	return rr.late.Stats()
}

// Close stops the renewals and closes the connections.
func (f *Fleet) Close() {
	f.close.Do(func() {
		f.mu.Lock()
		rr := f.rereg
		f.mu.Unlock()
		if rr != nil {
			rr.cancel()
			rr.sched.stop()
		}
		f.stop()
		f.renew.stop()
		// Closing thousands of connections one by one takes seconds.
		var wg sync.WaitGroup
		sem := make(chan struct{}, 256)
		for _, c := range f.conns {
			sem <- struct{}{}
			wg.Add(1)
			go func() { defer func() { <-sem; wg.Done() }(); c.Close() }()
		}
		wg.Wait()
	})
}
