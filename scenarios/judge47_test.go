package scenarios

import (
	"errors"
	"testing"
	"time"

	"sdchaos/report"
)

func isUsage(err error) bool { return errors.Is(err, ErrUsage) }

// synth builds ops at rate/s for d; fail(caller, t) decides each outcome.
func synth(callers []string, rate int, d time.Duration, fail func(caller string, at time.Duration) bool) []report.Op {
	var ops []report.Op
	step := time.Second / time.Duration(rate)
	for _, c := range callers {
		for at := time.Duration(0); at < d; at += step {
			o := report.OK
			if fail(c, at) {
				o = report.Fail
			}
			ops = append(ops, report.Op{Caller: c, Scheduled: at, Outcome: o})
		}
	}
	return ops
}

func TestCacheOnFailureJudge(t *testing.T) {
	s := &cacheOnFailure{trafficParams: defaultTrafficParams(), OutageAt: 2 * time.Second}
	marks := []report.Mark{{At: 2 * time.Second, Label: "SIGKILL etcd n1,n2,n3"}}
	tests := []struct {
		name       string
		fail       func(c string, at time.Duration) bool
		reproduced bool
	}{
		{"article shape", func(c string, at time.Duration) bool { return c == "clear" && at >= 2500*time.Millisecond }, true},
		{"clear fails too late", func(c string, at time.Duration) bool { return c == "clear" && at >= 3600*time.Millisecond }, false},
		{"keep loses one request", func(c string, at time.Duration) bool {
			return (c == "clear" && at >= 2500*time.Millisecond) || (c == "keep" && at == 5*time.Second)
		}, false},
		{"clear recovers", func(c string, at time.Duration) bool {
			return c == "clear" && at >= 2500*time.Millisecond && at < 6*time.Second
		}, false},
		{"clear never fails", func(string, time.Duration) bool { return false }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.judge(synth([]string{"keep", "clear"}, 40, 10*time.Second, tc.fail), marks, 10*time.Second)
			res.Finish()
			if res.Reproduced != tc.reproduced {
				t.Errorf("reproduced = %v, want %v; failed checks %+v", res.Reproduced, tc.reproduced, res.Failed())
			}
		})
	}
}

func TestPassiveEjectionJudge(t *testing.T) {
	s := &passiveEjection{trafficParams: defaultTrafficParams(), OutageAt: time.Second,
		CrashAt: 4 * time.Second, Eject: 30 * time.Second}
	marks := []report.Mark{{At: time.Second, Label: "SIGKILL etcd n1,n2,n3"}, {At: 4 * time.Second, Label: "crash instance j2"}}
	third := func(at time.Duration) bool { return at >= 4*time.Second && int(at/(25*time.Millisecond))%3 == 1 }
	tests := []struct {
		name       string
		fail       func(c string, at time.Duration) bool
		reproduced bool
		noneFail   float64
	}{
		{"article shape", func(c string, at time.Duration) bool {
			return (c == "none" && third(at)) || (c == "eject" && at == 4*time.Second+25*time.Millisecond)
		}, true, 80},
		{"eject fails like none", func(c string, at time.Duration) bool { return third(at) }, false, 80},
		{"none fails half", func(c string, at time.Duration) bool {
			return c == "none" && at >= 4*time.Second && int(at/(25*time.Millisecond))%2 == 0
		}, false, 120},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.judge(synth([]string{"none", "eject"}, 40, 10*time.Second, tc.fail), marks, 10*time.Second)
			res.Finish()
			if res.Reproduced != tc.reproduced {
				t.Errorf("reproduced = %v, want %v; failed checks %+v", res.Reproduced, tc.reproduced, res.Failed())
			}
			if res.Metrics["none.fail"] != tc.noneFail {
				t.Errorf("none.fail = %g, want %g", res.Metrics["none.fail"], tc.noneFail)
			}
		})
	}
}

func TestMinorityJudge(t *testing.T) {
	s := &minority{svc: defaultServiceParams(), OutageAt: 2 * time.Second, Outage: 8 * time.Second, OpTimeout: 2 * time.Second}
	good := minorityRun{survivor: "n1", lin: probe{ms: 2002}, ser: probe{ok: true, ms: 1, keys: 3}, put: probe{ms: 2002},
		keepalive: probe{ms: 2003}, present: 3, endPresent: 3, expected: 3, ttls: []float64{19, 18, 18}, timeline: 12 * time.Second}
	tests := []struct {
		name       string
		mutate     func(*minorityRun)
		reproduced bool
	}{
		{"article", func(*minorityRun) {}, true},
		{"linearizable read succeeded", func(o *minorityRun) { o.lin = probe{ok: true, ms: 3} }, false},
		{"slow serializable read", func(o *minorityRun) { o.ser.ms = 80 }, false},
		{"a key lost", func(o *minorityRun) { o.present = 2 }, false},
		{"leases mass-expired and re-granted short", func(o *minorityRun) { o.ttls = []float64{3, 3, 3} }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			o.ttls = append([]float64(nil), good.ttls...)
			tc.mutate(&o)
			res := s.judge(&o)
			res.Finish()
			if res.Reproduced != tc.reproduced {
				t.Errorf("reproduced = %v, want %v; failed %+v", res.Reproduced, tc.reproduced, res.Failed())
			}
		})
	}
}
