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

// RegisterAll registers every registrant, at most conc at a time.
func (f *Fleet) RegisterAll(ctx context.Context, conc int) error {
	sem := make(chan struct{}, conc)
	errs := make(chan error, len(f.regs))
	var wg sync.WaitGroup
	for i, r := range f.regs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := r.Register(ctx)
			f.live[i].Store(err == nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	var first error
	n := 0
	for err := range errs {
		if err != nil {
			n++
			if first == nil {
				first = err
			}
		}
	}
	if n > 0 {
		return fmt.Errorf("%d of %d initial registrations failed (first: %w)", n, len(f.regs), first)
	}
	return nil
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

// Reregister is what the registrants do when the link returns: each one
// re-registers, waiting b.Delay(k) before attempt k, until it succeeds or
// ctx ends. It returns how many succeeded and when the last one did (from
// the moment it was called). Renewals resume as each registrant succeeds.
func (f *Fleet) Reregister(ctx context.Context, b Backoff, r *rand.Rand) (int, time.Duration) {
	t0 := time.Now()
	seeds := make([]uint64, len(f.regs))
	for i := range seeds {
		seeds[i] = r.Uint64()
	}
	f.log.Arm(t0)
	var done atomic.Int64
	var last atomic.Int64
	var wg sync.WaitGroup
	for i, reg := range f.regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(seeds[i], uint64(i)))
			for k := 0; ; k++ {
				if clock.SleepUntil(ctx, time.Now().Add(b.Delay(k, rr))) != nil {
					return
				}
				if reg.Register(ctx) == nil {
					f.live[i].Store(true)
					done.Add(1)
					at := int64(time.Since(t0))
					for old := last.Load(); at > old && !last.CompareAndSwap(old, at); old = last.Load() {
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	f.log.Disarm()
	return int(done.Load()), time.Duration(last.Load())
}

// Close stops the renewals and closes the clients.
func (f *Fleet) Close() {
	f.close.Do(func() {
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
