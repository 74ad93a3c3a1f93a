package eurekamodel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"sdchaos/clock"
)

// ClientConfig describes one Eureka client.
type ClientConfig struct {
	// Instance is what the client registers and renews; an empty ID makes a
	// client that only fetches.
	Instance Instance
	// Servers are the service URLs in this client's order (the source
	// shuffles them once per client).
	Servers []string
	Config  Config
	Scale   Scale
	// Link, if set, is the partition switch of the client's group.
	Link *Link
	// Fetch runs the registry fetch loop (fetchRegistry).
	Fetch bool
	// HeartbeatPhase and FetchPhase delay the first heartbeat and the first
	// periodic fetch (model time), so clients started together do not renew
	// in lockstep.
	HeartbeatPhase, FetchPhase time.Duration
}

// FetchEvent is one registry fetch. At is when it ended (model time).
type FetchEvent struct {
	At       time.Duration `json:"at_ns"`
	OK       bool          `json:"ok"`
	IDs      []string      `json:"ids,omitempty"`
	Attempts []Attempt     `json:"attempts"`
	Err      string        `json:"err,omitempty"`
}

// BeatEvent is one heartbeat. At is when it ended (model time).
type BeatEvent struct {
	At           time.Duration `json:"at_ns"`
	OK           bool          `json:"ok"`
	Reregistered bool          `json:"reregistered,omitempty"`
	Attempts     []Attempt     `json:"attempts"`
	Err          string        `json:"err,omitempty"`
}

// Client is a DiscoveryClient: it registers, renews every RenewInterval
// (re-registering on 404), and fetches the full registry every
// FetchInterval; a failed fetch keeps the old registry, a successful empty
// one replaces it. Registration and queries use separate Retryable
// transports, each sticky on its own, as the source's registrationClient and
// queryClient are.
type Client struct {
	cfg   ClientConfig
	clk   clock.Clock
	httpc *http.Client
	reg   *Retryable
	query *Retryable

	mu      sync.Mutex
	apps    []Instance
	fetches []FetchEvent
	beats   []BeatEvent
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// NewClient returns a client; Start runs it.
func NewClient(cfg ClientConfig) *Client {
	s, m := cfg.Scale, cfg.Config
	base := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: s.RealNet(m.ConnectTimeout)}).DialContext,
		ResponseHeaderTimeout: s.RealNet(m.ReadTimeout),
		MaxIdleConnsPerHost:   4,
	}
	return &Client{cfg: cfg, clk: s.Clock(),
		httpc: &http.Client{Transport: linkTransport{base: base, link: cfg.Link, connect: s.RealNet(m.ConnectTimeout)}},
		reg:   NewRetryable(cfg.Servers, m.Retries, m.QuarantineRefresh),
		query: NewRetryable(cfg.Servers, m.Retries, m.QuarantineRefresh)}
}

// Start registers (if the client has an instance) and fetches once (if it
// fetches), failing if either fails, then runs the heartbeat and fetch loops
// until Stop.
func (c *Client) Start(ctx context.Context) error {
	if c.cfg.Instance.ID != "" {
		if err := c.Register(ctx); err != nil {
			return fmt.Errorf("registering %s: %w", c.cfg.Instance.ID, err)
		}
	}
	if c.cfg.Fetch {
		if ev := c.Fetch(ctx); !ev.OK {
			return fmt.Errorf("first fetch: %s", ev.Err)
		}
	}
	lctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	if c.cfg.Instance.ID != "" {
		c.loop(lctx, c.cfg.HeartbeatPhase, c.cfg.Config.RenewInterval, func() { c.Heartbeat(lctx) })
	}
	if c.cfg.Fetch {
		c.loop(lctx, c.cfg.FetchPhase, c.cfg.Config.FetchInterval, func() { c.Fetch(lctx) })
	}
	return nil
}

// loop runs f after first, then every period after each run ends (the
// source's TimedSupervisorTask reschedules after completion).
func (c *Client) loop(ctx context.Context, first, period time.Duration, f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for wait := first; clock.SleepFor(ctx, c.cfg.Scale.Real(wait)) == nil; wait = period {
			f()
		}
	}()
}

// Stop ends the loops without cancelling the lease (as a crash would) and
// waits for them.
func (c *Client) Stop() {
	if c.stop != nil {
		c.stop()
	}
	c.wg.Wait()
	c.httpc.CloseIdleConnections()
}

// Instances returns the client's cached registry.
func (c *Client) Instances() []Instance {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Instance(nil), c.apps...)
}

// Fetches returns every fetch so far.
func (c *Client) Fetches() []FetchEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]FetchEvent(nil), c.fetches...)
}

// Beats returns every heartbeat so far.
func (c *Client) Beats() []BeatEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]BeatEvent(nil), c.beats...)
}

// QueryServer returns the server the fetches stick to.
func (c *Client) QueryServer() string { return c.query.Sticky() }

// Register registers the instance (through the registration transport).
func (c *Client) Register(ctx context.Context) error {
	body, err := json.Marshal(c.cfg.Instance)
	if err != nil {
		return err
	}
	_, _, err = c.reg.Execute(ReqRegister, func(server string) (int, error) {
		return c.send(ctx, http.MethodPost, server+AppsPath+"/"+c.cfg.Instance.App, body, nil)
	})
	return err
}

// Heartbeat renews the lease; a 404 makes the client register again at once.
func (c *Client) Heartbeat(ctx context.Context) BeatEvent {
	in := c.cfg.Instance
	status, attempts, err := c.reg.Execute(ReqHeartbeat, func(server string) (int, error) {
		return c.send(ctx, http.MethodPut, server+AppsPath+"/"+in.App+"/"+in.ID, nil, nil)
	})
	ev := BeatEvent{Attempts: attempts, OK: err == nil && status == http.StatusOK}
	if err == nil && status == http.StatusNotFound {
		ev.Reregistered = true
		err = c.Register(ctx)
		ev.OK = err == nil
	}
	if err != nil {
		ev.Err = err.Error()
	}
	ev.At = offset(c.clk.Now())
	c.mu.Lock()
	c.beats = append(c.beats, ev)
	c.mu.Unlock()
	return ev
}

// Fetch gets the full registry: on success it replaces the cached one (even
// with an empty answer); on failure the cached one stays.
func (c *Client) Fetch(ctx context.Context) FetchEvent {
	var got AppsResponse
	status, attempts, err := c.query.Execute(ReqFetch, func(server string) (int, error) {
		got = AppsResponse{}
		return c.send(ctx, http.MethodGet, server+AppsPath, nil, &got)
	})
	ev := FetchEvent{Attempts: attempts, At: offset(c.clk.Now())}
	switch {
	case err != nil:
		ev.Err = err.Error()
	case status != http.StatusOK:
		ev.Err = fmt.Sprintf("status %d", status)
	default:
		ev.OK = true
		for _, in := range got.Instances {
			ev.IDs = append(ev.IDs, in.ID)
		}
	}
	c.mu.Lock()
	if ev.OK {
		c.apps = got.Instances
	}
	c.fetches = append(c.fetches, ev)
	c.mu.Unlock()
	return ev
}

// send makes one request and returns its status; out, if set, receives a
// 200 answer's JSON body.
func (c *Client) send(ctx context.Context, method, url string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.httpc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return 0, fmt.Errorf("decoding %s: %w", url, err)
		}
	}
	return resp.StatusCode, nil
}
