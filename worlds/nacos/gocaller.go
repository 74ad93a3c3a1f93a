package nacos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nacos-group/nacos-sdk-go/v2/clients/naming_client"
	"github.com/nacos-group/nacos-sdk-go/v2/model"
	"github.com/nacos-group/nacos-sdk-go/v2/vo"

	"sdchaos/history"
)

// CallerSpec is the traffic of a caller: calls to service at Rate from Start until End, each
// with CallTimeout.
type CallerSpec struct {
	Service     string        // the service called
	Rate        float64       // calls per second, open loop
	Start, End  time.Time     // the first call is due at Start; none is due at or after End
	CallTimeout time.Duration // each call's deadline (a timed-out call is Unknown)
	// Restarted marks a caller started again (possibly while the server is unreachable): its
	// setup (the listener's subscribe) is tried once and a failure is an EventSetupFailed, not
	// an error; its first call is the first one due on Start's grid once its setup is done.
	Restarted bool
	// Log records the calls and the client's reports as they come (required).
	Log *CallLog
}

// Validate reports the first setting out of range, quoting it.
func (s CallerSpec) Validate() error {
	if !s.End.After(s.Start) {
		return fmt.Errorf("CallerSpec.End (%s) must be after Start (%s)", s.End.Format(time.RFC3339Nano), s.Start.Format(time.RFC3339Nano))
	}
	return s.validateGated()
}

// validateGated is Validate for a caller whose gate gives Start and End (they must be zero).
func (s CallerSpec) validateGated() error {
	switch {
	case s.Service == "":
		return errors.New("CallerSpec.Service is empty")
	case s.Rate <= 0 || s.Rate > 1000:
		return fmt.Errorf("CallerSpec.Rate (%g) must be within (0, 1000]", s.Rate)
	case s.CallTimeout <= 0:
		return fmt.Errorf("CallerSpec.CallTimeout (%s) must be positive", s.CallTimeout)
	case s.Log == nil:
		return errors.New("CallerSpec.Log is nil: the calls would be recorded nowhere")
	}
	return nil
}

// GoCaller is a nacos-sdk-go client calling a service: it subscribes (each callback is an
// EventInstances) and, for each call, asks SelectOneHealthyInstance (the SDK's weighted-random
// choice over its cached list) and GETs that instance. It records into its spec's Log.
type GoCaller struct {
	client naming_client.INamingClient
	log    *CallLog
	spec   CallerSpec
	done   chan struct{}
	mu     sync.Mutex
	stop   context.CancelFunc // nil until Begin
	killed time.Time          // when Kill was called (zero: running)
}

// StartGoCaller creates the client, subscribes, and calls in the background until spec.End.
// With spec.Restarted a failed subscribe is recorded (EventSetupFailed) and the calls go on.
func StartGoCaller(ctx context.Context, o ClientOptions, spec CallerSpec) (*GoCaller, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("starting a Go caller: %w", err)
	}
	g, err := PrepareGoCaller(o, spec)
	if err != nil {
		return nil, err
	}
	g.Begin(ctx, spec.Start, spec.End)
	return g, nil
}

// PrepareGoCaller creates the client and subscribes, as StartGoCaller does, but makes no call
// until Begin; spec's Start and End are not used (Begin gives them).
func PrepareGoCaller(o ClientOptions, spec CallerSpec) (*GoCaller, error) {
	if err := spec.validateGated(); err != nil {
		return nil, fmt.Errorf("starting a Go caller: %w", err)
	}
	c, err := NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("starting a Go caller: %w", err)
	}
	g := &GoCaller{client: c, log: spec.Log, done: make(chan struct{}), spec: spec}
	if err := g.setup(spec); err != nil {
		if !spec.Restarted {
			c.CloseClient()
			return nil, fmt.Errorf("starting a Go caller: subscribing to %s: %w", spec.Service, err)
		}
		g.log.event(Event{Kind: EventSetupFailed, Time: time.Now(), Detail: "subscribing: " + err.Error()})
	}
	g.log.event(Event{Kind: EventStarted, Time: time.Now(), Detail: fmt.Sprintf("nacos-sdk-go NotLoadCacheAtStart=%t UpdateCacheWhenEmpty=%t%s",
		o.NotLoadCacheAtStart, o.UpdateCacheWhenEmpty, restartedWord(spec.Restarted))})
	return g, nil
}

// Begin starts the calls: due from start (a restarted caller's from the first due on start's
// grid from now), none at or after end.
func (g *GoCaller) Begin(ctx context.Context, start, end time.Time) {
	spec := g.spec
	spec.Start, spec.End = start, end
	if spec.Restarted {
		spec.Start = firstDue(spec.Start, spec.Rate, time.Now())
	}
	ctx, stop := context.WithCancel(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil { // begun already, or killed
		stop()
		return
	}
	g.stop = stop
	go g.run(ctx, spec)
}

// setupTries and setupPause bound the first subscribe's retries, as the Java callers' setup
// (Setup.java): on a loaded machine the client's connection may not be registered on the
// server yet ("Connection is unregistered"). A restarted caller tries once.
const (
	setupTries = 5
	setupPause = 2 * time.Second
)

// setup subscribes, retrying up to setupTries times setupPause apart (once when restarted).
func (g *GoCaller) setup(spec CallerSpec) error {
	var err error
	for i := range setupTries {
		if err = g.subscribe(spec); err == nil || spec.Restarted {
			return err
		}
		if i < setupTries-1 {
			time.Sleep(setupPause)
		}
	}
	return err
}

// subscribe subscribes the listener that records the client's list changes.
func (g *GoCaller) subscribe(spec CallerSpec) error {
	return g.client.Subscribe(&vo.SubscribeParam{ServiceName: spec.Service, GroupName: Group,
		SubscribeCallback: func(list []model.Instance, _ error) {
			g.log.event(Event{Kind: EventInstances, Time: time.Now(), Count: len(list)})
		}})
}

// restartedWord is " restarted" for a restarted caller's started event.
func restartedWord(restarted bool) string {
	if restarted {
		return " restarted"
	}
	return ""
}

// firstDue is the first time at or after now on the grid start + i/rate.
func firstDue(start time.Time, rate float64, now time.Time) time.Time {
	period := time.Duration(float64(time.Second) / rate)
	if !now.After(start) {
		return start
	}
	i := (now.Sub(start) + period - 1) / period
	return start.Add(i * period)
}

func (g *GoCaller) run(ctx context.Context, spec CallerSpec) {
	defer close(g.done)
	defer g.client.CloseClient()
	hc := &http.Client{Timeout: spec.CallTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	pace(ctx, spec.Start, spec.End, spec.Rate, func(due time.Time) { g.call(hc, spec.Service, due) })
}

// Kill ends the caller as a killed process ends: its calls stop, its client is closed, and the
// calls that had not ended by now are not recorded (a dead process prints nothing).
func (g *GoCaller) Kill() {
	g.mu.Lock()
	if g.killed.IsZero() {
		g.killed = time.Now()
	}
	stop := g.stop
	if stop == nil { // never begun: no call runs; the client is closed here
		g.stop = func() {}
		g.mu.Unlock()
		g.client.CloseClient()
		close(g.done)
		return
	}
	g.mu.Unlock()
	stop()
	<-g.done
}

// dead reports whether the caller was killed before t.
func (g *GoCaller) dead(t time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.killed.IsZero() && t.After(g.killed)
}

func (g *GoCaller) call(hc *http.Client, service string, due time.Time) {
	c := Call{Scheduled: due, Start: time.Now()}
	in, err := g.client.SelectOneHealthyInstance(vo.SelectOneHealthInstanceParam{ServiceName: service, GroupName: Group})
	class := selectClass(err)
	if err == nil {
		c.Target = net.JoinHostPort(in.Ip, strconv.FormatUint(in.Port, 10))
		err, class = get(hc, c.Target), history.ErrInstance
	}
	c.End, c.Outcome = time.Now(), OK
	if err != nil {
		c.Outcome, c.Err, c.Class = callOutcome(err), err.Error(), string(class)
	}
	if !g.dead(c.End) {
		g.log.call(c)
	}
}

// SDK errors of SelectOneHealthyInstance when the client's list holds no (healthy) instance:
// nacos-sdk-go v2.3.2 naming_client.selectOneHealthyInstances returns exactly these (errors.New,
// no typed error); every other error of the call comes from its subscribe to the server.
const (
	sdkEmptyList   = "instance list is empty!"
	sdkNoneHealthy = "healthy instance list is empty!"
)

// selectClass is why SelectOneHealthyInstance failed: no instance in the client's list, or the
// server could not be read.
func selectClass(err error) history.ErrClass {
	if err == nil {
		return ""
	}
	if m := err.Error(); m == sdkEmptyList || m == sdkNoneHealthy {
		return history.ErrNoInstance
	}
	return history.ErrRegistry
}

// get GETs http://target/ and wants 200.
func get(hc *http.Client, target string) error {
	resp, err := hc.Get("http://" + target + "/")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// callOutcome is Unknown for a timeout, Fail otherwise.
func callOutcome(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Unknown
	}
	return Fail
}

// Wait blocks until the caller has stopped (spec.End, its context or Kill).
func (g *GoCaller) Wait() { <-g.done }
