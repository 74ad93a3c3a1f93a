package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sdchaos/history"
)

// target is a named link, registration and restartable caller that logs
// what is done to it (the faults' own logic under test, not a registry).
type target struct {
	name string
	fail string // the action that fails
	log  *actions
}

type actions struct {
	mu   sync.Mutex
	done []string
}

func (a *actions) add(s string) { a.mu.Lock(); a.done = append(a.done, s); a.mu.Unlock() }

func (t target) act(what string) error {
	t.log.add(what + " " + t.name)
	if what == t.fail {
		return errors.New("refused")
	}
	return nil
}
func (t target) Name() string                  { return t.name }
func (t target) Blackhole() error              { return t.act("blackhole") }
func (t target) Heal() error                   { return t.act("heal") }
func (t target) Deregister() error             { return t.act("deregister") }
func (t target) Reregister() error             { return t.act("reregister") }
func (t target) Kill()                         { _ = t.act("kill") }
func (t target) Restart(context.Context) error { return t.act("restart") }

func targets2(fail string) (*actions, target, target) {
	log := &actions{}
	return log, target{name: "instance-0", log: log}, target{name: "spring", fail: fail, log: log}
}

func TestTargetFaultsDescribeTheirTargets(t *testing.T) {
	_, a, b := targets2("")
	tests := []struct {
		f     Fault
		kind  history.EventKind
		label string
	}{
		{BlackholeLinks{Links: []Link{a, b}}, history.BlackholeLinks, "blackhole every client link (2)"},
		{BlackholeLinks{Links: []Link{a}, Cluster: "jitter"}, history.BlackholeLinks, "jitter: blackhole instance-0's link"},
		{DeregisterInstances{Instances: []Registration{a, b}}, history.DeregisterInstances, "deregister every instance (2, endpoints up)"},
		{RestartCallers{Callers: []Restartable{a, b}}, history.RestartCallers, "restart instance-0, spring (killed, started again on their disk caches)"},
	}
	for _, tc := range tests {
		e := tc.f.Describe()
		if e.Kind != tc.kind || e.Label != tc.label || e.Targets[0] != "instance-0" {
			t.Errorf("%T: %+v, want kind %s, label %q", tc.f, e, tc.kind, tc.label)
		}
	}
}

func TestTargetFaultsActOnEveryTargetAndNameTheOneThatFailed(t *testing.T) {
	tests := []struct {
		fail   string
		run    func(a, b target) error
		want   []string
		errHas string
	}{
		{"heal", func(a, b target) error {
			f := BlackholeLinks{Links: []Link{a, b}}
			return errors.Join(f.Inject(context.Background()), f.Heal(context.Background()))
		}, []string{"blackhole instance-0", "blackhole spring", "heal instance-0", "heal spring"}, "spring: refused"},
		{"deregister", func(a, b target) error {
			f := DeregisterInstances{Instances: []Registration{a, b}}
			return errors.Join(f.Inject(context.Background()), f.Heal(context.Background()))
		}, []string{"deregister instance-0", "deregister spring", "reregister instance-0", "reregister spring"}, "spring: refused"},
	}
	for _, tc := range tests {
		log, a, b := targets2(tc.fail)
		err := tc.run(a, b)
		if !slices.Equal(log.done, tc.want) || err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: did %v (err %v), want %v and an error naming %q", tc.fail, log.done, err, tc.want, tc.errHas)
		}
	}
}

// TestRestartCallersKillsAllFirstAndIsAOneOffEvent: every caller is killed
// before any starts again; on the timeline the restart is one Once event,
// carrying the error of the caller that could not start.
func TestRestartCallersKillsAllFirstAndIsAOneOffEvent(t *testing.T) {
	log, a, b := targets2("restart")
	rec := history.NewRecorder(time.Now())
	tl := Timeline{{At: 0, Fault: RestartCallers{Callers: []Restartable{a, b}}}}
	if err := tl.Run(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	kills := 0
	for i, d := range log.done {
		if strings.HasPrefix(d, "kill") {
			kills++
			if kills != i+1 {
				t.Errorf("a caller restarted before every caller was killed: %v", log.done)
			}
		}
	}
	e, ok := rec.Events().First(history.RestartCallers, history.Once)
	if !ok || !strings.Contains(e.Err, "spring: refused") || kills != 2 || len(log.done) != 4 {
		t.Errorf("events %+v, actions %v: want one Once restart event naming spring's failure", rec.Events(), log.done)
	}
}

func TestDescribeCountsTheStepsBeyondTheFirst(t *testing.T) {
	var tl Timeline
	for i := range 12 {
		tl = append(tl, Step{At: time.Second, For: time.Second, Fault: BlackholeLinks{Links: []Link{target{name: fmt.Sprint(i)}}}})
	}
	if d := tl.Describe(); !strings.HasSuffix(d, " and 4 more steps") || strings.Count(d, "blackhole") != describeSteps {
		t.Errorf("Describe() = %q", d)
	}
}
