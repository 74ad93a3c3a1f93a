package scenarios

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/eureka"
	"sdchaos/report"
)

// dispatcher is a scheduler's task loop: tasks at a fixed rate (open loop,
// caller.Schedule), each sent to a worker picked at random from the Eureka
// client's cached registry and, when that fails, retried on other workers
// (never the same one twice) up to retries times. One op per task.
//
// It does not use caller.Caller: that one picks round-robin, has no per-call
// retry on another instance, and keeps its own copy of the list refreshed on
// its own clock, which would add a second cache in front of the Eureka
// client's (whose fetch rules are part of the model).
type dispatcher struct {
	name    string
	rate    float64
	retries int
	client  *eureka.Client
	seed    uint64
	timeout time.Duration
	httpc   *http.Client
}

func newDispatcher(name string, rate float64, retries int, client *eureka.Client, seed uint64) *dispatcher {
	tr := &http.Transport{MaxIdleConnsPerHost: 8, DialContext: (&net.Dialer{Timeout: time.Second}).DialContext}
	return &dispatcher{name: name, rate: rate, retries: retries, client: client, seed: seed, timeout: time.Second,
		httpc: &http.Client{Transport: tr}}
}

// run sends tasks for d (real time) from rec's time zero and waits for the last.
func (d *dispatcher) run(ctx context.Context, rec *report.Recorder, dur time.Duration) error {
	defer d.httpc.CloseIdleConnections()
	var wg sync.WaitGroup
	err := caller.Schedule{T0: rec.T0(), Rate: d.rate}.Pace(ctx, dur, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); rec.Add(d.task(ctx, rec, k, due)) }()
	})
	wg.Wait()
	return err
}

// task runs task k: up to retries+1 distinct workers in a seeded random order.
func (d *dispatcher) task(ctx context.Context, rec *report.Recorder, k int, due time.Time) report.Op {
	op := report.Op{Caller: d.name, Seq: k, Scheduled: rec.Offset(due), Start: rec.Offset(time.Now())}
	insts := d.client.Instances()
	order := rand.New(rand.NewPCG(d.seed, uint64(k))).Perm(len(insts))
	err := caller.ErrNoInstances
	var tried []string
	for _, i := range order[:min(len(order), d.retries+1)] {
		tried = append(tried, insts[i].ID)
		if err = caller.Get(ctx, d.httpc, caller.Endpoint{ID: insts[i].ID, Addr: insts[i].Addr}, d.timeout); err == nil {
			break
		}
	}
	op.End, op.Target, op.Outcome = rec.Offset(time.Now()), strings.Join(tried, ">"), report.OK
	if err != nil {
		op.Outcome, op.Err = caller.Classify(err), err.Error()
	}
	return op
}
