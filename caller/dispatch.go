package caller

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"sdchaos/history"
	"strings"
	"sync"
	"time"
)

// Traffic is anything that sends traffic during a run: it sends on its own
// schedule from the recorder's time zero for d, records every call into
// rec, and returns when its last call has ended. Caller and Dispatcher are
// Traffic.
type Traffic interface {
	Run(ctx context.Context, rec *history.Recorder, d time.Duration) error
}

// DispatcherConfig describes a scheduler's task loop.
type DispatcherConfig struct {
	// Name labels the tasks' ops ("R=3").
	Name string
	// Rate is the open-loop task rate per second.
	Rate float64
	// Retries is how many other instances a failed task is retried on.
	Retries int
	// Instances returns the scheduler's current list (its discovery
	// client's cached registry).
	Instances func() []Endpoint
	// Seed fixes each task's random order of instances.
	Seed uint64
	// Timeout bounds each try (1 s when 0).
	Timeout time.Duration
}

// Dispatcher is a scheduler's task loop: tasks at a fixed rate (open loop),
// each sent to an instance picked at random from the discovery client's
// list and, when that fails, retried on other instances (never the same
// one twice) up to Retries times. One op per task.
//
// It is not a Caller: a Caller picks round-robin, has no per-call retry on
// another instance, and keeps its own copy of the list refreshed on its own
// clock, which would add a second cache in front of the discovery client's
// (whose fetch rules are part of the Eureka model).
type Dispatcher struct {
	cfg   DispatcherConfig
	httpc *http.Client
}

// NewDispatcher returns a dispatcher.
func NewDispatcher(cfg DispatcherConfig) *Dispatcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Second
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 8, DialContext: (&net.Dialer{Timeout: time.Second}).DialContext}
	return &Dispatcher{cfg: cfg, httpc: &http.Client{Transport: tr}}
}

// Name returns the dispatcher's name.
func (d *Dispatcher) Name() string { return d.cfg.Name }

// Run sends tasks for dur (real time) from rec's time zero and waits for the last.
func (d *Dispatcher) Run(ctx context.Context, rec *history.Recorder, dur time.Duration) error {
	defer d.httpc.CloseIdleConnections()
	var wg sync.WaitGroup
	err := Schedule{T0: rec.T0(), Rate: d.cfg.Rate}.Pace(ctx, dur, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); rec.Add(d.task(ctx, rec, k, due)) }()
	})
	wg.Wait()
	return err
}

// task runs task k: up to Retries+1 distinct instances in a seeded random order.
func (d *Dispatcher) task(ctx context.Context, rec *history.Recorder, k int, due time.Time) history.Op {
	op := history.Op{Caller: d.cfg.Name, Kind: history.OpTask, Seq: k, Scheduled: rec.Offset(due), Start: rec.Offset(time.Now()), Paced: true}
	insts := d.cfg.Instances()
	order := rand.New(rand.NewPCG(d.cfg.Seed, uint64(k))).Perm(len(insts))
	err := ErrNoInstances
	var tried []string
	for _, i := range order[:min(len(order), d.cfg.Retries+1)] {
		tried = append(tried, insts[i].ID)
		if err = Get(ctx, d.httpc, insts[i], d.cfg.Timeout); err == nil {
			break
		}
	}
	op.End, op.Target, op.Outcome, op.Count = rec.Offset(time.Now()), strings.Join(tried, ">"), history.OK, len(tried)
	if err != nil {
		op.Outcome, op.Err = Classify(err), err.Error()
	}
	return op
}
