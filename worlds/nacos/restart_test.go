package nacos

import (
	"strings"
	"testing"
	"time"

	"sdchaos/fault"
	"sdchaos/ports"
)

// TestFirstDue: a restarted caller's first call is the first one due at or after the end of its
// setup, on the original grid.
func TestFirstDue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name string
		now  time.Time
		want time.Time
	}{
		{"before the start", t0.Add(-time.Second), t0},
		{"at the start", t0, t0},
		{"between two sends", t0.Add(7*time.Second + 10*time.Millisecond), t0.Add(7*time.Second + 25*time.Millisecond)},
		{"on a send", t0.Add(7 * time.Second), t0.Add(7 * time.Second)},
	}
	for _, tc := range tests {
		if got := firstDue(t0, 40, tc.now); !got.Equal(tc.want) {
			t.Errorf("%s: firstDue = %s, want %s", tc.name, got.Sub(t0), tc.want.Sub(t0))
		}
	}
}

// TestAKilledGoCallerRecordsNothingThatEndedAfterIt: a dead process prints nothing, so a
// killed Go caller records no call that ended after its kill.
func TestAKilledGoCallerRecordsNothingThatEndedAfterIt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	g := &GoCaller{}
	if g.dead(t0) {
		t.Error("a running caller is dead")
	}
	g.killed = t0
	for _, tc := range []struct {
		end  time.Time
		dead bool
	}{{t0.Add(-time.Millisecond), false}, {t0, false}, {t0.Add(time.Millisecond), true}} {
		if got := g.dead(tc.end); got != tc.dead {
			t.Errorf("a call ending %s after the kill: dead %t, want %t", tc.end.Sub(t0), got, tc.dead)
		}
	}
}

// TestWorldSpecValidate: a world names known callers, gives them time to start, and has a
// timeline.
func TestWorldSpecValidate(t *testing.T) {
	alloc := ports.New(12000, "test")
	ok := WorldSpec{ServerPorts: alloc, LinkPorts: alloc, EndpointPorts: alloc, Service: "svc", Instances: 3, Parallel: 1,
		Callers: []string{"spring", "go-sdk"}, Rate: 40, CallTimeout: time.Second, JVMStart: time.Second, Sample: time.Second,
		Duration: time.Minute, Timeline: func(*World) (fault.Timeline, error) { return nil, nil }}
	tests := []struct {
		name    string
		edit    func(*WorldSpec)
		wantErr string
	}{
		{"ok", func(*WorldSpec) {}, ""},
		{"a cache-only caller", func(s *WorldSpec) { s.Callers = append(s.Callers, "spring-cache") }, ""},
		{"no callers, no JVM start", func(s *WorldSpec) { s.Callers, s.JVMStart = nil, 0 }, ""},
		{"an unknown caller", func(s *WorldSpec) { s.Callers = append(s.Callers, "go-nocache") }, `unknown caller "go-nocache"`},
		{"callers without time to start", func(s *WorldSpec) { s.JVMStart = 0 }, "JVMStart (0s) must be positive"},
		{"too many instances", func(s *WorldSpec) { s.Instances = MaxInstances + 1 }, "Instances (901)"},
		{"no timeline", func(s *WorldSpec) { s.Timeline = nil }, "Timeline is nil"},
		{"a bad rate", func(s *WorldSpec) { s.Rate = 0 }, "Rate (0)"},
	}
	for _, tc := range tests {
		s := ok
		s.Callers = append([]string(nil), ok.Callers...)
		tc.edit(&s)
		err := s.Validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

// TestJavaCallerSnapshotPath: the client's disk cache goes where JM.SNAPSHOT.PATH says, and the
// restart reaches the JVM's environment.
func TestJavaCallerSnapshotPath(t *testing.T) {
	s := JavaCallerSpec{Name: "c", Mode: Plain, Home: "/h", CallerSpec: CallerSpec{Restarted: true}}
	if got := s.snapshotPath(); got != "/h" {
		t.Errorf("JM.SNAPSHOT.PATH without SnapshotPath = %s, want Home", got)
	}
	s.SnapshotPath = "/h/cache"
	args := strings.Join(callerArgs("app.jar", s, nil), " ")
	if !strings.Contains(args, "-DJM.SNAPSHOT.PATH=/h/cache ") {
		t.Errorf("args %s lack JM.SNAPSHOT.PATH", args)
	}
	if env := strings.Join(callerEnv(s), " "); !strings.Contains(env, "SDCHAOS_RESTARTED=true") {
		t.Errorf("env %s lacks SDCHAOS_RESTARTED", env)
	}
}
