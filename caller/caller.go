package caller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"sdchaos/report"
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
	}
	return nil
}

// RefreshSuffix is appended to a caller's name for its refresh ops.
const RefreshSuffix = "/refresh"

// Caller sends requests over its cached list and records every call.
type Caller struct {
	cfg  Config
	src  Source
	rec  *report.Recorder
	list *List
	http *http.Client
}

// New returns a caller reading instances from src.
func New(cfg Config, src Source) *Caller {
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
	c.list.Apply(eps, nil)
	return nil
}

// Run sends requests on the schedule starting at rec.T0() for d, refreshing
// the list meanwhile, records every call and refresh into rec, and returns
// when every call has ended. Run once per caller.
func (c *Caller) Run(ctx context.Context, rec *report.Recorder, d time.Duration) error {
	c.rec = rec
	rctx, stopRefresh := context.WithCancel(ctx)
	defer stopRefresh()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.refreshLoop(rctx, d) }()
	sched := Schedule{T0: c.rec.T0(), Rate: c.cfg.Rate}
	// Calls get ctx, not rctx: the last calls of the schedule must finish
	// (each has its own deadline) rather than be cut off when pacing ends.
	err := sched.Pace(ctx, d, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); c.call(ctx, k, due) }()
	})
	stopRefresh()
	wg.Wait()
	return err
}

func (c *Caller) refreshLoop(ctx context.Context, d time.Duration) {
	t0 := c.rec.T0()
	for k := 0; ; k++ {
		due := t0.Add(c.cfg.RefreshPhase + time.Duration(k)*c.cfg.Refresh)
		if due.Sub(t0) >= d {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(due)):
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
	c.list.Apply(eps, err)
	op := report.Op{Caller: c.cfg.Name + RefreshSuffix, Seq: k, Scheduled: c.rec.Offset(due),
		Start: c.rec.Offset(start), End: c.rec.Offset(end), Outcome: report.OK, Target: fmt.Sprintf("%d listed", len(eps))}
	if err != nil {
		op.Outcome, op.Err, op.Target = Classify(err), err.Error(), ""
	}
	c.rec.Add(op)
}

func (c *Caller) call(ctx context.Context, k int, due time.Time) {
	start := time.Now()
	op := report.Op{Caller: c.cfg.Name, Seq: k, Scheduled: c.rec.Offset(due), Start: c.rec.Offset(start)}
	ep, err := c.list.Pick(start)
	if err == nil {
		op.Target = ep.ID
		err = c.get(ctx, ep)
		c.list.Report(ep, err == nil, time.Now())
	}
	op.End = c.rec.Offset(time.Now())
	op.Outcome = report.OK
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
func Classify(err error) report.Outcome {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return report.Unknown
	}
	return report.Fail
}

// Close releases idle connections.
func (c *Caller) Close() { c.http.CloseIdleConnections() }
