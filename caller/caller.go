package caller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
)

// Config describes one caller.
type Config struct {
	// Name labels the caller's ops ("keep", "clear", …).
	Name string
	// Rate is the open-loop send rate in requests per second.
	Rate float64
	// Refresh is how often the list is refreshed; RefreshTimeout bounds each refresh.
	Refresh, RefreshTimeout time.Duration
	// RefreshPhase delays the first refresh tick after T0 (0 ≤ phase < Refresh),
	// so the refresh clock is not aligned with the fault timeline by accident.
	RefreshPhase time.Duration
	// CallTimeout bounds each request to an instance.
	CallTimeout time.Duration
	Policy      Policy
	// Start and Stop bound the caller's life on the run's timeline: it sends
	// (and refreshes) from T0+Start until T0+Stop (until the end of the run
	// when Stop is 0). A caller that starts late is a process that (re)started
	// then: it begins with an empty list, or with its snapshot.
	Start, Stop time.Duration
	// Snapshot, when set, is a file the caller writes its list to whenever
	// the list changes (atomically).
	Snapshot string
	// LoadSnapshot makes the caller start from Snapshot (a missing or corrupt
	// file is a logged warning and an empty start).
	LoadSnapshot bool
	// Log receives warnings; nil discards them.
	Log *slog.Logger
}

// DefaultConfig returns the article's caller: 40 req/s, refresh every 1s.
func DefaultConfig(name string) Config {
	return Config{Name: name, Rate: 40, Refresh: time.Second, RefreshTimeout: 500 * time.Millisecond,
		CallTimeout: time.Second}
}

// Validate reports impossible values, quoting them.
func (c Config) Validate() error {
	switch {
	case c.Rate <= 0:
		return fmt.Errorf("rate (%g) must be positive", c.Rate)
	case c.Refresh <= 0:
		return fmt.Errorf("refresh interval (%s) must be positive", c.Refresh)
	case c.RefreshTimeout <= 0:
		return fmt.Errorf("refresh timeout (%s) must be positive", c.RefreshTimeout)
	case c.CallTimeout <= 0:
		return fmt.Errorf("call timeout (%s) must be positive", c.CallTimeout)
	case c.RefreshPhase < 0 || c.RefreshPhase >= c.Refresh:
		return fmt.Errorf("refresh phase (%s) must be within [0, refresh %s)", c.RefreshPhase, c.Refresh)
	case c.Start < 0 || (c.Stop != 0 && c.Stop <= c.Start):
		return fmt.Errorf("start (%s) and stop (%s): want 0 ≤ start < stop", c.Start, c.Stop)
	case c.LoadSnapshot && c.Snapshot == "":
		return errors.New("LoadSnapshot needs a Snapshot path")
	}
	return nil
}

// RefreshSuffix is appended to a caller's name for its refresh ops.
const RefreshSuffix = "/refresh"

// Caller sends requests over its cached list and records every call.
type Caller struct {
	cfg  Config
	src  Source
	rec  *history.Recorder
	list *List
	http *http.Client
}

// New returns a caller reading instances from src.
func New(cfg Config, src Source) *Caller {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second,
		DialContext: (&net.Dialer{Timeout: cfg.CallTimeout}).DialContext}
	return &Caller{cfg: cfg, src: src, list: NewList(cfg.Policy), http: &http.Client{Transport: tr}}
}

// Name returns the caller's name.
func (c *Caller) Name() string { return c.cfg.Name }

// List returns the caller's cached list.
func (c *Caller) List() *List { return c.list }

// Prime fills the list with one refresh; it fails if the registry does not
// answer or lists nothing.
func (c *Caller) Prime(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*c.cfg.RefreshTimeout)
	defer cancel()
	eps, err := c.src.List(ctx)
	if err != nil {
		return fmt.Errorf("caller %s: first refresh: %w", c.cfg.Name, err)
	}
	if len(eps) == 0 {
		return fmt.Errorf("caller %s: first refresh listed no instance", c.cfg.Name)
	}
	c.apply(eps, nil)
	return nil
}

// apply applies a refresh result and writes the snapshot if the list changed.
func (c *Caller) apply(eps []Endpoint, err error) {
	if !c.list.Apply(eps, err) || c.cfg.Snapshot == "" || c.cfg.LoadSnapshot {
		return
	}
	if err := SaveSnapshot(c.cfg.Snapshot, c.list.Snapshot()); err != nil {
		c.cfg.Log.Warn("caller could not write its snapshot", "caller", c.cfg.Name, "err", err)
	}
}

// restore fills the list from the snapshot; a missing or bad file is a
// warning and an empty start.
func (c *Caller) restore() {
	eps, err := LoadSnapshot(c.cfg.Snapshot)
	if err != nil {
		c.cfg.Log.Warn("caller starts with an empty list", "caller", c.cfg.Name, "err", err)
		return
	}
	c.list.Apply(eps, nil)
}

// Run sends requests on the schedule starting at rec.T0() for d, refreshing
// the list meanwhile, records every call and refresh into rec, and returns
// when every call has ended. Run once per caller.
func (c *Caller) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	c.rec = rec
	if c.cfg.Stop > 0 {
		d = min(d, c.cfg.Stop)
	}
	if err := clock.SleepUntil(ctx, rec.T0().Add(c.cfg.Start)); err != nil {
		return err
	}
	if c.cfg.Start > 0 {
		rec.Event(time.Now(), history.Event{Kind: history.CallerStart, Phase: history.Once, Targets: []string{c.cfg.Name},
			Label: "caller " + c.cfg.Name + " starts"})
	}
	if c.cfg.LoadSnapshot {
		c.restore()
	}
	rctx, stopRefresh := context.WithCancel(ctx)
	defer stopRefresh()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.refreshLoop(rctx, d) }()
	sched := Schedule{T0: c.rec.T0(), Rate: c.cfg.Rate}
	// Calls get ctx, not rctx: the last calls of the schedule must finish
	// (each has its own deadline) rather than be cut off when pacing ends.
	err := sched.PaceFrom(ctx, c.cfg.Start, d, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); c.call(ctx, k, due) }()
	})
	stopRefresh()
	if c.cfg.Stop > 0 && err == nil {
		rec.Event(rec.T0().Add(d), history.Event{Kind: history.CallerStop, Phase: history.Once, Targets: []string{c.cfg.Name},
			Label: "caller " + c.cfg.Name + " stops"})
	}
	wg.Wait()
	return err
}

func (c *Caller) refreshLoop(ctx context.Context, d time.Duration) {
	t0 := c.rec.T0()
	for k := 0; ; k++ {
		at := c.cfg.RefreshPhase + time.Duration(k)*c.cfg.Refresh
		if at < c.cfg.Start {
			continue
		}
		if at >= d {
			return
		}
		due := t0.Add(at)
		if clock.SleepUntil(ctx, due) != nil {
			return
		}
		c.refresh(ctx, k, due)
	}
}

func (c *Caller) refresh(ctx context.Context, k int, due time.Time) {
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RefreshTimeout)
	eps, err := c.src.List(rctx)
	cancel()
	end := time.Now()
	if ctx.Err() != nil {
		return // the run is over; do not count a cancelled refresh
	}
	c.apply(eps, err)
	op := history.Op{Caller: c.cfg.Name + RefreshSuffix, Kind: history.OpRefresh, Seq: k, Scheduled: c.rec.Offset(due),
		Start: c.rec.Offset(start), End: c.rec.Offset(end), Outcome: history.OK, Count: len(eps)}
	if err != nil {
		op.Outcome, op.Err, op.Count = Classify(err), err.Error(), 0
	}
	c.rec.Add(op)
}

func (c *Caller) call(ctx context.Context, k int, due time.Time) {
	start := time.Now()
	op := history.Op{Caller: c.cfg.Name, Kind: history.OpCall, Seq: k, Scheduled: c.rec.Offset(due), Start: c.rec.Offset(start), Paced: true}
	ep, err := c.list.Pick(start)
	if err == nil {
		op.Target = ep.ID
		err = c.get(ctx, ep)
		c.list.Report(ep, err == nil, time.Now())
	}
	op.End = c.rec.Offset(time.Now())
	op.Outcome = history.OK
	if err != nil {
		op.Outcome, op.Err = Classify(err), err.Error()
	}
	c.rec.Add(op)
}

func (c *Caller) get(ctx context.Context, ep Endpoint) error {
	return Get(ctx, c.http, ep, c.cfg.CallTimeout)
}

// Get sends one GET to ep's root through client with the given timeout and
// drains the answer; an answer other than 200 is an error naming ep.
func Get(ctx context.Context, client *http.Client, ep Endpoint, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ep.Addr+"/", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", ep.ID, resp.Status)
	}
	return nil
}

// Classify maps a call error to an outcome: a deadline is Unknown, the rest Fail.
func Classify(err error) history.Outcome {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return history.Unknown
	}
	return history.Fail
}

// Close releases idle connections.
func (c *Caller) Close() { c.http.CloseIdleConnections() }
