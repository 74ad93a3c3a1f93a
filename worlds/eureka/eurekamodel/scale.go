package eurekamodel

import (
	"fmt"
	"time"

	"sdchaos/clock"
)

// NetFloor is the smallest real duration a network timeout is given,
// whatever the scale: scheduling noise on a shared host (a few ms) must not
// pass for a model timeout. Injected latency is not floored.
const NetFloor = 50 * time.Millisecond

// Scale maps model time to real time: Factor model seconds pass per real
// second, and model time zero is the real instant Epoch. Every process of a
// run gets the same Epoch and Factor, so model times are comparable across
// processes (they share the host's clock).
type Scale struct {
	Epoch  time.Time
	Factor float64
}

// NewScale returns a scale; it panics on a non-positive factor (callers
// validate the flag first).
func NewScale(epoch time.Time, factor float64) Scale {
	if factor <= 0 {
		panic(fmt.Sprintf("eureka: time scale %g must be positive", factor))
	}
	return Scale{Epoch: epoch, Factor: factor}
}

// Real converts a model duration to real time.
func (s Scale) Real(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.Factor)
}

// RealNet converts a model network timeout to real time, at least NetFloor.
func (s Scale) RealNet(d time.Duration) time.Duration { return max(s.Real(d), NetFloor) }

// Model converts a real duration to model time.
func (s Scale) Model(d time.Duration) time.Duration {
	return time.Duration(float64(d) * s.Factor)
}

// At returns the model time (since model zero) of the real instant t.
func (s Scale) At(t time.Time) time.Duration { return s.Model(t.Sub(s.Epoch)) }

// RealAt returns the real instant of model time m.
func (s Scale) RealAt(m time.Duration) time.Time { return s.Epoch.Add(s.Real(m)) }

// Clock returns a clock.Clock on model time: Now() is clock.Epoch plus the
// model time elapsed since Epoch, and timers wait the real equivalent of
// their model duration.
func (s Scale) Clock() clock.Clock { return scaledClock{s} }

type scaledClock struct{ s Scale }

func (c scaledClock) Now() time.Time                  { return clock.Epoch.Add(c.s.At(time.Now())) }
func (c scaledClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c scaledClock) Sleep(d time.Duration)           { time.Sleep(c.s.Real(d)) }

func (c scaledClock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

func (c scaledClock) NewTimer(d time.Duration) clock.Timer {
	t := &scaledTimer{c: c, ch: make(chan time.Time, 1)}
	t.t = time.AfterFunc(c.s.Real(d), t.fire)
	return t
}

func (c scaledClock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("eureka: non-positive interval for NewTicker")
	}
	k := &scaledTicker{ch: make(chan time.Time, 1), t: time.NewTicker(c.s.Real(d)), done: make(chan struct{})}
	go k.forward(c)
	return k
}

type scaledTimer struct {
	c  scaledClock
	ch chan time.Time
	t  *time.Timer
}

func (t *scaledTimer) fire() {
	select {
	case t.ch <- t.c.Now():
	default:
	}
}
func (t *scaledTimer) C() <-chan time.Time        { return t.ch }
func (t *scaledTimer) Stop() bool                 { return t.t.Stop() }
func (t *scaledTimer) Reset(d time.Duration) bool { return t.t.Reset(t.c.s.Real(d)) }

type scaledTicker struct {
	ch   chan time.Time
	t    *time.Ticker
	done chan struct{}
}

func (k *scaledTicker) forward(c scaledClock) {
	for {
		select {
		case <-k.done:
			return
		case <-k.t.C:
			select {
			case k.ch <- c.Now():
			default:
			}
		}
	}
}
func (k *scaledTicker) C() <-chan time.Time { return k.ch }
func (k *scaledTicker) Stop()               { k.t.Stop(); close(k.done) }

// offset returns model instant t as model time since model zero, the form
// histories use (At fields).
func offset(t time.Time) time.Duration { return t.Sub(clock.Epoch) }
