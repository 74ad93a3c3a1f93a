package experiment

import (
	"strings"
	"testing"
	"time"
)

// chainPart is a 30 s experiment on 3 instances with a keep caller and one
// fault step from 3 s for 18 s.
func chainPart(name string, f FaultKind) Experiment {
	return Experiment{Name: name, Summary: name + " in one line", Duration: Duration(30 * time.Second),
		Instances: Instances{Count: 3}, Callers: []Caller{{Name: "keep", Kind: PolicyCaller, Policy: Keep}},
		Timeline: []Step{{At: Duration(3 * time.Second), For: Duration(18 * time.Second), Fault: f}, {At: Duration(8 * time.Second), Probe: ProbeMembers}}}
}

func TestChainMovesEachTimelineByTheDurationsBefore(t *testing.T) {
	a, b := chainPart("a", CutOffMember), chainPart("b", QuorumLoss)
	b.Duration = Duration(40 * time.Second)
	b.Registry = Registry("nacos")
	x, err := Chain([]Experiment{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Duration
	for _, s := range x.Timeline {
		at = append(at, s.At.D())
	}
	want := []time.Duration{3 * time.Second, 8 * time.Second, 33 * time.Second, 38 * time.Second}
	if x.Name != "a-then-b" || x.Duration.D() != 70*time.Second || x.Registry != Registry("nacos") || len(at) != 4 || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] || at[3] != want[3] {
		t.Errorf("chain: name %q, duration %s, registry %q, steps at %v; want a-then-b, 1m10s, nacos, %v", x.Name, x.Duration, x.Registry, at, want)
	}
	if !strings.Contains(x.Summary, "a (a in one line); then b (b in one line)") {
		t.Errorf("summary %q does not say both parts", x.Summary)
	}
	if one, err := Chain([]Experiment{a}); err != nil || one.Name != "a" {
		t.Errorf("a chain of one is %q, %v; want the experiment itself", one.Name, err)
	}
}

func TestChainRefusesWhatIsNotOneWorld(t *testing.T) {
	tests := []struct {
		name string
		edit func(first, next *Experiment)
		want string
	}{
		{"nothing", nil, "no experiment"},
		{"other instances", func(_, n *Experiment) { n.Instances.Count = 4 }, "instances differ"},
		{"other callers", func(_, n *Experiment) { n.Callers[0].Policy = Clear }, "callers differ"},
		{"two registries", func(f, n *Experiment) { f.Registry, n.Registry = Registry("etcd"), Registry("nacos") }, "registry nacos, but a names etcd"},
		{"named checks", func(_, n *Experiment) { n.Checks = []string{"x"} }, "names its checks"},
		{"an unhealed fault before the last", func(f, _ *Experiment) { f.Timeline[0].For = 0 }, "never healed"},
		{"a crash before the last", func(f, _ *Experiment) { f.Timeline[0].Fault, f.Timeline[0].For = CrashInstance, 0 }, "crashes an instance"},
	}
	for _, tc := range tests {
		first, next := chainPart("a", CutOffMember), chainPart("b", QuorumLoss)
		next.Callers = []Caller{{Name: "keep", Kind: PolicyCaller, Policy: Keep}}
		xs := []Experiment{first, next}
		if tc.edit == nil {
			xs = nil
		} else {
			tc.edit(&xs[0], &xs[1])
		}
		_, err := Chain(xs)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line with %q", tc.name, err, tc.want)
		}
	}
	last := chainPart("b", CrashInstance)
	last.Timeline[0].For = 0
	if _, err := Chain([]Experiment{chainPart("a", CutOffMember), last}); err != nil {
		t.Errorf("the last experiment crashes an instance: %v, want it chained", err)
	}
}
