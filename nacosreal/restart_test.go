package nacosreal

import (
	"strings"
	"testing"
	"time"
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

// TestDropEndedAfter: a killed Go caller keeps only the calls that ended before its kill.
func TestDropEndedAfter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var r record
	for i := range 4 {
		r.call(Call{Scheduled: t0.Add(time.Duration(i) * time.Second), End: t0.Add(time.Duration(i)*time.Second + 500*time.Millisecond)})
	}
	r.dropEndedAfter(t0.Add(2 * time.Second))
	if got := len(r.result().Calls); got != 2 {
		t.Errorf("%d calls kept, want 2 (those that ended by the kill)", got)
	}
}

// TestJitterSpecRestart: the restart must name the run's callers and fall inside the fault.
func TestJitterSpecRestart(t *testing.T) {
	ok := DefaultJitterSpec()
	ok.Restart, ok.RestartAt = []string{"spring", "go-sdk"}, 7*time.Second
	tests := []struct {
		name    string
		edit    func(*JitterSpec)
		wantErr string
	}{
		{"inside the fault", func(*JitterSpec) {}, ""},
		{"a cache-only caller", func(s *JitterSpec) {
			s.Callers = append(s.Callers, "spring-cache")
			s.Restart = append(s.Restart, "spring-cache")
		}, ""},
		{"before the fault", func(s *JitterSpec) { s.RestartAt = 4 * time.Second }, "RestartAt (4s) must be inside the fault"},
		{"after the heal", func(s *JitterSpec) { s.RestartAt = 24 * time.Second }, "RestartAt (24s) must be inside the fault"},
		{"not a caller of the run", func(s *JitterSpec) { s.Restart = []string{"plain-cache"} }, `"plain-cache" is not one of the run's callers`},
		{"an unknown caller", func(s *JitterSpec) { s.Callers = append(s.Callers, "go-nocache") }, `unknown caller "go-nocache"`},
	}
	for _, tc := range tests {
		s := ok
		s.Callers = append([]string(nil), ok.Callers...)
		s.Restart = append([]string(nil), ok.Restart...)
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
	if got := s.CacheDir(); got != "/h/nacos/naming/public" {
		t.Errorf("CacheDir without SnapshotPath = %s", got)
	}
	s.SnapshotPath = "/h/cache"
	if got := s.CacheDir(); got != "/h/cache/nacos/naming/public" {
		t.Errorf("CacheDir = %s", got)
	}
	args := strings.Join(callerArgs("app.jar", s, nil), " ")
	if !strings.Contains(args, "-DJM.SNAPSHOT.PATH=/h/cache ") {
		t.Errorf("args %s lack JM.SNAPSHOT.PATH", args)
	}
	if env := strings.Join(callerEnv(s), " "); !strings.Contains(env, "SDCHAOS_RESTARTED=true") {
		t.Errorf("env %s lacks SDCHAOS_RESTARTED", env)
	}
}
