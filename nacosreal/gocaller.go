package nacosreal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/nacos-group/nacos-sdk-go/v2/clients/naming_client"
	"github.com/nacos-group/nacos-sdk-go/v2/model"
	"github.com/nacos-group/nacos-sdk-go/v2/vo"
)

// CallerSpec is the traffic of a caller: calls to service at Rate from Start until End, each
// with CallTimeout.
type CallerSpec struct {
	Service     string        // the service called
	Rate        float64       // calls per second, open loop
	Start, End  time.Time     // the first call is due at Start; none is due at or after End
	CallTimeout time.Duration // each call's deadline (a timed-out call is Unknown)
}

// Validate reports the first setting out of range, quoting it.
func (s CallerSpec) Validate() error {
	switch {
	case s.Service == "":
		return errors.New("CallerSpec.Service is empty")
	case s.Rate <= 0 || s.Rate > 1000:
		return fmt.Errorf("CallerSpec.Rate (%g) must be within (0, 1000]", s.Rate)
	case !s.End.After(s.Start):
		return fmt.Errorf("CallerSpec.End (%s) must be after Start (%s)", s.End.Format(time.RFC3339Nano), s.Start.Format(time.RFC3339Nano))
	case s.CallTimeout <= 0:
		return fmt.Errorf("CallerSpec.CallTimeout (%s) must be positive", s.CallTimeout)
	}
	return nil
}

// GoCaller is a nacos-sdk-go client calling a service: it subscribes (each callback is an
// EventInstances) and, for each call, asks SelectOneHealthyInstance (the SDK's weighted-random
// choice over its cached list) and GETs that instance.
type GoCaller struct {
	client naming_client.INamingClient
	rec    record
	done   chan struct{}
}

// StartGoCaller creates the client, subscribes, and calls in the background until spec.End.
func StartGoCaller(ctx context.Context, o ClientOptions, spec CallerSpec) (*GoCaller, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("starting a Go caller: %w", err)
	}
	c, err := NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("starting a Go caller: %w", err)
	}
	g := &GoCaller{client: c, done: make(chan struct{})}
	err = c.Subscribe(&vo.SubscribeParam{ServiceName: spec.Service, GroupName: Group,
		SubscribeCallback: func(list []model.Instance, _ error) {
			g.rec.event(Event{Kind: EventInstances, Time: time.Now(), Count: len(list)})
		}})
	if err != nil {
		c.CloseClient()
		return nil, fmt.Errorf("starting a Go caller: subscribing to %s: %w", spec.Service, err)
	}
	g.rec.event(Event{Kind: EventStarted, Time: time.Now(), Detail: fmt.Sprintf("nacos-sdk-go NotLoadCacheAtStart=%t UpdateCacheWhenEmpty=%t", o.NotLoadCacheAtStart, o.UpdateCacheWhenEmpty)})
	go g.run(ctx, spec)
	return g, nil
}

func (g *GoCaller) run(ctx context.Context, spec CallerSpec) {
	defer close(g.done)
	defer g.client.CloseClient()
	hc := &http.Client{Timeout: spec.CallTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	pace(ctx, spec.Start, spec.End, spec.Rate, func(due time.Time) { g.call(hc, spec.Service, due) })
}

func (g *GoCaller) call(hc *http.Client, service string, due time.Time) {
	c := Call{Scheduled: due, Start: time.Now()}
	in, err := g.client.SelectOneHealthyInstance(vo.SelectOneHealthInstanceParam{ServiceName: service, GroupName: Group})
	if err == nil {
		c.Target = net.JoinHostPort(in.Ip, strconv.FormatUint(in.Port, 10))
		err = get(hc, c.Target)
	}
	c.End, c.Outcome = time.Now(), OK
	if err != nil {
		c.Outcome, c.Err = outcomeOf(err), err.Error()
	}
	g.rec.call(c)
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

// outcomeOf is Unknown for a timeout, Fail otherwise.
func outcomeOf(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Unknown
	}
	return Fail
}

// Wait blocks until the caller has stopped (spec.End or its context) and returns its record.
func (g *GoCaller) Wait() Result {
	<-g.done
	return g.rec.result()
}

// Snapshot returns what the caller recorded so far.
func (g *GoCaller) Snapshot() Result { return g.rec.result() }
