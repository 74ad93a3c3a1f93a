package dns

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// TestDNSCan: the DNS world makes the clients' DNS path held, a quorum loss and a member cut
// off its peers, together too (the judge tells a cut member apart by its own how, CutPeers),
// and the DNS servers killed (registry-unreachable how: kill); it refuses how: drop and a
// user's program, in one line each.
func TestDNSCan(t *testing.T) {
	step := func(f experiment.FaultKind, at time.Duration) experiment.Step {
		return experiment.Step{At: experiment.Duration(at), For: experiment.Duration(5 * time.Second), Fault: f}
	}
	base := experiment.Experiment{Name: "x", Summary: "x", Duration: experiment.Duration(40 * time.Second), Instances: experiment.Instances{Count: 3},
		Callers:  []experiment.Caller{{Name: "keep", Kind: experiment.PolicyCaller, Policy: experiment.Keep}},
		Timeline: []experiment.Step{step(experiment.Unreachable, time.Second)}}
	tests := []struct {
		name string
		edit func(*experiment.Experiment)
		want string // "" = accepted
	}{
		{"the default", func(*experiment.Experiment) {}, ""},
		{"a member cut off, then the path held", func(x *experiment.Experiment) {
			x.Timeline = []experiment.Step{step(experiment.CutOffMember, time.Second), step(experiment.Unreachable, 20*time.Second)}
		}, ""},
		{"kill the DNS servers", func(x *experiment.Experiment) { x.Timeline[0].How = experiment.Kill }, ""},
		{"drop", func(x *experiment.Experiment) { x.Timeline[0].How = experiment.Drop }, "how: drop"},
		{"exec", func(x *experiment.Experiment) {
			x.Callers = append(x.Callers, experiment.Caller{Name: "mine", Kind: experiment.ExecClient, Command: []string{"true"}})
		}, "no user's program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := base
			x.Callers = append([]experiment.Caller(nil), base.Callers...)
			x.Timeline = append([]experiment.Step(nil), base.Timeline...)
			tt.edit(&x)
			err := dnsRegistry{}.Can(x)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, rig.ErrCannot) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Can = %v, want an ErrCannot naming %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("more than one line: %q", err)
			}
		})
	}
}
