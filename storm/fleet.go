package storm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
)

// FleetConfig describes the registrants.
type FleetConfig struct {
	// N registrants; PerClient of them share one etcd client (1 = each its
	// own connection, as pods would have).
	N, PerClient int
	// Endpoints are dialled round-robin: client i uses Endpoints[i % len], so
	// each client holds one connection.
	Endpoints []string
	// Prefix of the keys (<Prefix><i>).
	Prefix string
	// TTL of each lease, Renew its renewal interval, Timeout of each call.
	TTL, Renew, Timeout time.Duration
}

// Fleet is N registrants, renewing while the link is up.
type Fleet struct {
	cfg   FleetConfig
	clis  []*clientv3.Client
	regs  []*fakeservice.Registrant
	log   *Log
	live  []atomic.Bool // live[i]: registrant i holds a registration it renews
	stop  chan struct{}
	wg    sync.WaitGroup
	close sync.Once
	mu    sync.Mutex
	rereg *rereg // the current re-registration, if any
}

// NewFleet creates the clients and registrants (no call is made yet).
func NewFleet(cfg FleetConfig, log *Log) (*Fleet, error) {
	f := &Fleet{cfg: cfg, log: log, stop: make(chan struct{})}
	nClients := (cfg.N + cfg.PerClient - 1) / cfg.PerClient
	for i := 0; i < nClients; i++ {
		cli, err := etcdcli.New(cfg.Endpoints[i%len(cfg.Endpoints)])
		if err != nil {
			f.Close()
			return nil, err
		}
		f.clis = append(f.clis, cli)
	}
	for i := 0; i < cfg.N; i++ {
		key := fmt.Sprintf("%s%06d", cfg.Prefix, i)
		f.regs = append(f.regs, fakeservice.NewRegistrant(f.clis[i/cfg.PerClient], key, "127.0.0.1:0", cfg.TTL, cfg.Timeout, log.Observe))
	}
	f.live = make([]atomic.Bool, cfg.N)
	return f, nil
}

// Clients returns the number of etcd clients (connections) of the fleet.
func (f *Fleet) Clients() int { return len(f.clis) }

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
				f.live[i].Store(true)
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

// StartRenewing starts one goroutine per registrant that renews every Renew
// (from a random phase) while the link is up, and registers again when its
// lease is gone.
func (f *Fleet) StartRenewing(r *rand.Rand) {
	for i := range f.regs {
		phase := time.Duration(r.Int64N(int64(f.cfg.Renew)))
		f.wg.Add(1)
		go func() { defer f.wg.Done(); f.renewLoop(i, phase) }()
	}
}

func (f *Fleet) renewLoop(i int, phase time.Duration) {
	reg, live := f.regs[i], &f.live[i]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-f.stop; cancel() }()
	next := time.Now().Add(phase)
	for clock.SleepUntil(ctx, next) == nil {
		next = next.Add(f.cfg.Renew)
		if !live.Load() {
			continue
		}
		if err := reg.Renew(ctx); errors.Is(err, fakeservice.ErrLeaseGone) && live.Load() {
			_ = reg.Register(ctx)
		}
	}
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
	wg      sync.WaitGroup
	allDone chan struct{}
	done    atomic.Int64
	last    atomic.Int64 // ns after t0
}

// LinkUp tells the registrants their connection is back (as a client's
// connection-state watcher would): each one re-registers in the background,
// waiting b.Delay(k) before attempt k, until it succeeds or Back gives up.
// Renewals resume as each registrant succeeds. The log is armed now.
func (f *Fleet) LinkUp(b Backoff, r *rand.Rand) {
	seeds := make([]uint64, len(f.regs))
	for i := range seeds {
		seeds[i] = r.Uint64()
	}
	ctx, cancel := context.WithCancel(context.Background())
	rr := &rereg{t0: time.Now(), cancel: cancel, allDone: make(chan struct{})}
	f.mu.Lock()
	f.rereg = rr
	f.mu.Unlock()
	f.log.Arm(rr.t0)
	for i, reg := range f.regs {
		rr.wg.Add(1)
		go func() {
			defer rr.wg.Done()
			f.reregisterOne(ctx, rr, i, reg, b, rand.New(rand.NewPCG(seeds[i], uint64(i))))
		}()
	}
	go func() { rr.wg.Wait(); close(rr.allDone) }()
}

func (f *Fleet) reregisterOne(ctx context.Context, rr *rereg, i int, reg *fakeservice.Registrant, b Backoff, r *rand.Rand) {
	for k := 0; ; k++ {
		if clock.SleepUntil(ctx, time.Now().Add(b.Delay(k, r))) != nil {
			return
		}
		if reg.Register(ctx) == nil {
			f.live[i].Store(true)
			rr.done.Add(1)
			at := int64(time.Since(rr.t0))
			for old := rr.last.Load(); at > old && !rr.last.CompareAndSwap(old, at); old = rr.last.Load() {
			}
			return
		}
	}
}

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
	rr.wg.Wait()
	f.log.Disarm()
	return int(rr.done.Load()), time.Duration(rr.last.Load())
}

// Close stops the renewals and closes the clients.
func (f *Fleet) Close() {
	f.close.Do(func() {
		f.mu.Lock()
		if f.rereg != nil {
			f.rereg.cancel()
		}
		f.mu.Unlock()
		close(f.stop)
		f.wg.Wait()
		// Closing thousands of clients one by one takes tens of seconds.
		var wg sync.WaitGroup
		sem := make(chan struct{}, 256)
		for _, c := range f.clis {
			sem <- struct{}{}
			wg.Add(1)
			go func() { defer func() { <-sem; wg.Done() }(); c.Close() }()
		}
		wg.Wait()
	})
}
