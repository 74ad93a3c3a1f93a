package eureka

import (
	"context"
	"errors"
	"testing"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
)

// stubWake stands in for a server's control channel (its wake verbs only).
type stubWake struct {
	alive bool
	err   error
}

func (s stubWake) Name() string                   { return "s1" }
func (s stubWake) Alive() bool                    { return s.alive }
func (s stubWake) ResetWake() error               { return nil }
func (s stubWake) Wake() (clock.WakeStats, error) { return clock.WakeStats{Wakes: 3}, s.err }

// TestWakeProbeReadsServersOnlyAfterAWholeRun: a whole run records the
// harness's op and each live server's; a closed server's failed read is an
// error then, but an interrupted run reads no server (they may be closing)
// and ends without error.
func TestWakeProbeReadsServersOnlyAfterAWholeRun(t *testing.T) {
	closed := errors.New("control channel closed")
	tests := []struct {
		name      string
		server    stubWake
		interrupt bool
		ops       int
		err       bool
	}{
		{"whole run, live server", stubWake{alive: true}, false, 2, false},
		{"whole run, killed server", stubWake{alive: false}, false, 1, false},
		{"whole run, failed read", stubWake{alive: true, err: closed}, false, 1, true},
		{"interrupted, closing server", stubWake{alive: true, err: closed}, true, 1, false},
	}
	for _, tc := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		if tc.interrupt {
			cancel()
		}
		rec := history.NewRecorder(time.Now())
		err := wakeProbe{servers: []wakeServer{tc.server}}.Run(ctx, rec, 30*time.Millisecond)
		cancel()
		if (err != nil) != tc.err || len(rec.Ops()) != tc.ops {
			t.Errorf("%s: err %v, %d ops; want error %v, %d ops", tc.name, err, len(rec.Ops()), tc.err, tc.ops)
		}
	}
}
