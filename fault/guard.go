package fault

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
)

// PanicError is a panic caught in a run: in its plan, or in a goroutine
// the harness started for traffic, a timeline step or a probe. A panic in
// a goroutine nobody recovers kills the process before any deferred
// clean-up runs (keys, leases, heals, children); caught, it is an error
// like any other, and the run's clean-up runs.
type PanicError struct {
	// Phase names what was running ("the plan", "timeline step …").
	Phase string
	// Value is what was passed to panic.
	Value any
	// At names the innermost frames of the harness's code that panicked.
	At string
}

// Error returns one line: the phase, the panic's value and where it happened.
func (e *PanicError) Error() string {
	return fmt.Sprintf("panic in %s: %v (at %s)", e.Phase, e.Value, e.At)
}

// Guard runs f and returns a *PanicError naming phase if f panics, f's
// error otherwise.
func Guard(phase string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Phase: phase, Value: r, At: panicFrames(3)}
		}
	}()
	return f()
}

// panicFrames names up to n frames of the panicking goroutine, innermost
// first, skipping the runtime's and Guard's own.
func panicFrames(n int) string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	var out []string
	for f, more := frames.Next(); more && len(out) < n; f, more = frames.Next() {
		if strings.HasPrefix(f.Function, "runtime.") || strings.HasSuffix(f.Function, "fault.Guard") {
			continue
		}
		name := f.Function[strings.LastIndex(f.Function, "/")+1:]
		out = append(out, fmt.Sprintf("%s %s:%d", name, f.File[strings.LastIndex(f.File, "/")+1:], f.Line))
	}
	return strings.Join(out, " ← ")
}

// FailpointEnv names the environment variable that arms failpoints: a
// comma-separated list of their names. Test-only, as etcd's gofail: it lets
// a test make a run panic at a chosen point and check that the run still
// cleans up.
const FailpointEnv = "SDCHAOS_FAILPOINT"

// Failpoint panics with "failpoint <name>" when $SDCHAOS_FAILPOINT names
// it, and does nothing otherwise. The points: "timeline-injected" (a
// timeline step, once its fault took effect), "traffic" (each traffic
// goroutine of rig.RunTraffic, as it starts) and "storm-registered" (the
// re-registration storm, once its registrants first registered).
func Failpoint(name string) {
	if v := os.Getenv(FailpointEnv); v != "" && slices.Contains(strings.Split(v, ","), name) {
		panic("failpoint " + name)
	}
}
