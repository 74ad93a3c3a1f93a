package zookeeper

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/history"
)

// zkSource is a policy caller's registry client in the ZooKeeper world: a
// Go client of its own session reading the Curator layout as Curator's
// ServiceDiscovery does (the service's children, then each one's data).
type zkSource struct {
	client  *Client
	service string
}

// List reads the instances and returns their HTTP addresses.
func (s zkSource) List(ctx context.Context) ([]caller.Endpoint, error) {
	ins, err := s.client.Instances(ctx, DefaultBasePath, s.service)
	if err != nil {
		return nil, err
	}
	out := make([]caller.Endpoint, 0, len(ins))
	for _, in := range ins {
		out = append(out, caller.Endpoint{ID: in.ID, Addr: in.Target()})
	}
	return out, nil
}

// NewCallers creates the policy callers, each reading through a client of
// its own session (through the client links), primed with one refresh.
func (z *ZooKeeper) NewCallers(ctx context.Context, cfgs []caller.Config) ([]*caller.Caller, error) {
	var out []*caller.Caller
	for _, cfg := range cfgs {
		cl, err := z.NewClient()
		if err != nil {
			return nil, err
		}
		z.Defer(cl.Close)
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = cl.WaitSession(wctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("caller %s: %w", cfg.Name, err)
		}
		cfg.Log = z.env.Log
		c := caller.New(cfg, zkSource{client: cl, service: z.Service})
		if err := c.Prime(ctx); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// JavaClient names a real Java client of the ZooKeeper world and its mode.
type JavaClient struct {
	// Name labels its calls; Mode picks Curator or Spring Cloud Zookeeper.
	Name string
	Mode JavaMode
	Rate float64
}

// javaCaller is a real Java client as traffic: started (and built) before
// time zero, gated until then, its calls and connection states recorded
// once it exits.
type javaCaller struct {
	name    string
	c       *JavaCaller
	timeout time.Duration

	mu     sync.Mutex
	maxRSS int64
}

// javaStartWait bounds a Java caller's start (a JVM, Spring's context and a
// first read of the registry on a loaded machine).
const javaStartWait = 4 * time.Minute

// StartJavaClients starts the Java callers (building their jar on first
// use) with the run's connect string, and waits until each is ready.
func (z *ZooKeeper) StartJavaClients(ctx context.Context, cs []JavaClient, callTimeout time.Duration) ([]caller.Traffic, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	sup, err := z.env.Supervisor()
	if err != nil {
		return nil, err
	}
	dir, err := sup.TempDir("sdchaos-zk-callers-*", z.env.Keep)
	if err != nil {
		return nil, fmt.Errorf("creating the callers' dir: %w", err)
	}
	t0 := time.Now()
	var out []caller.Traffic
	var jcs []*javaCaller
	for _, c := range cs {
		jc, err := StartJavaCaller(ctx, sup, JavaCallerSpec{Name: c.Name, Mode: c.Mode, Connect: z.Ensemble.ConnectString(),
			Service: z.Service, Rate: c.Rate, Gated: true, CallTimeout: callTimeout, Dir: dir, Logf: z.env.Printf})
		if err != nil {
			return nil, err
		}
		z.Defer(jc.Kill)
		j := &javaCaller{name: c.Name, c: jc, timeout: callTimeout}
		jcs, out = append(jcs, j), append(out, j)
	}
	for _, j := range jcs {
		if err := j.waitReady(ctx); err != nil {
			return nil, err
		}
	}
	z.JavaReady = time.Since(t0)
	jw, err := DescribeJavaCallers(ctx, z.env.Printf)
	if err != nil {
		return nil, err
	}
	z.env.Describe(jw)
	z.env.Printf("zookeeper: %d Java callers ready %.1f s after their launch", len(jcs), z.JavaReady.Seconds())
	return out, nil
}

// waitReady waits until the caller's client is built and waits for its gate.
func (j *javaCaller) waitReady(ctx context.Context) error {
	t := time.NewTimer(javaStartWait)
	defer t.Stop()
	select {
	case <-j.c.Ready():
		return nil
	case <-j.c.Done():
		_, err := j.c.Wait()
		return fmt.Errorf("Java caller %s exited before it was ready: %v", j.name, err)
	case <-t.C:
		return fmt.Errorf("Java caller %s not ready within %s (see %s)", j.name, javaStartWait, j.c.LogPath())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run opens the caller's gate for [T0, T0+d), samples its memory while it
// calls, waits for it to exit and records its calls and its states.
func (j *javaCaller) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	if err := j.c.Open(rec.T0(), rec.T0().Add(d)); err != nil {
		return err
	}
	go j.sampleRSS(ctx, rec, d)
	select {
	case <-j.c.Done():
	case <-ctx.Done():
		j.c.Kill()
	}
	res, err := j.c.Wait()
	j.record(rec, res)
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// sampleRSS reads the JVM's resident set at half and near the end of its
// calls, keeping the largest.
func (j *javaCaller) sampleRSS(ctx context.Context, rec *history.Recorder, d time.Duration) {
	for _, at := range []time.Duration{d / 2, d - time.Second} {
		if clock.SleepUntil(ctx, rec.T0().Add(at)) != nil {
			return
		}
		if n, err := j.c.RSS(); err == nil {
			j.mu.Lock()
			j.maxRSS = max(j.maxRSS, n)
			j.mu.Unlock()
		}
	}
}

// RSS returns the largest resident set sampled while it called (0: none).
func (j *javaCaller) RSS() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.maxRSS
}

// record adds every call (an open-loop send) and every state change the
// client reported.
func (j *javaCaller) record(rec *history.Recorder, res Result) {
	for i, c := range res.Calls {
		op := history.Op{Caller: j.name, Kind: history.OpCall, Seq: i, Scheduled: rec.Offset(c.Scheduled), Start: rec.Offset(c.Start),
			End: rec.Offset(c.End), Target: c.Target, Outcome: outcomeOf(c.Outcome), Err: c.Err, Paced: true}
		rec.Add(op)
	}
	for _, e := range res.Events {
		op := history.Op{Caller: j.name + StateSuffix, Kind: history.OpState, Start: rec.Offset(e.Time), End: rec.Offset(e.Time),
			Scheduled: rec.Offset(e.Time), Target: string(e.Kind), Value: string(e.State), Count: e.Count, Outcome: history.OK}
		rec.Add(op)
	}
}

// StateSuffix is appended to a real client's name for its state ops.
const StateSuffix = "/state"

// outcomeOf maps a Java caller's outcome to the history's.
func outcomeOf(o Outcome) history.Outcome {
	switch o {
	case OK:
		return history.OK
	case Unknown:
		return history.Unknown
	}
	return history.Fail
}
