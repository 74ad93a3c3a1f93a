package nacos

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// TestNacosCan: the Nacos world runs the member faults and the members probe on its cluster and
// refuses, in one ErrCannot line, the leader cut off (Distro has none), registry-unreachable in
// a run on the cluster and a killed standalone server; which experiments run on the cluster.
func TestNacosCan(t *testing.T) {
	sec := func(n int) experiment.Duration { return experiment.Duration(time.Duration(n) * time.Second) }
	base := experiment.Experiment{Name: "x", Summary: "x", Duration: sec(30), Instances: experiment.Instances{Count: 3},
		Callers: []experiment.Caller{{Name: "keep", Kind: experiment.PolicyCaller, Policy: experiment.Keep}}}
	probe := experiment.Step{At: sec(8), Probe: experiment.ProbeMembers}
	tests := []struct {
		name     string
		timeline []experiment.Step
		want     string // "" = accepted
		cluster  bool
	}{
		{"blackhole", []experiment.Step{{At: sec(2), For: sec(5), Fault: experiment.Unreachable}}, "", false},
		{"kill the server", []experiment.Step{{At: sec(2), For: sec(5), Fault: experiment.Unreachable, How: experiment.Kill}}, "how: kill", false},
		{"crash", []experiment.Step{{At: sec(2), Fault: experiment.CrashInstance}}, "", false},
		{"quorum loss", []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.QuorumLoss}, probe}, "", true},
		{"cut a follower", []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.CutOffMember, Which: experiment.Follower}, probe}, "", true},
		{"cut the leader", []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.CutOffMember, Which: experiment.Leader}}, "no leader", true},
		{"a probe alone", []experiment.Step{probe}, "", true},
		{"blackhole on the cluster", []experiment.Step{{At: sec(2), For: sec(5), Fault: experiment.Unreachable}, probe}, "on the cluster", true},
		{"packets dropped", []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.Unreachable, How: experiment.Drop}}, "", true},
		{"a member's packets dropped", []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.MemberUnreachable}}, "", true},
		{"the leader's packets dropped", []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.MemberUnreachable, Which: experiment.Leader}}, "no leader", true},
		{"blackhole beside dropped packets", []experiment.Step{{At: sec(2), For: sec(5), Fault: experiment.Unreachable},
			{At: sec(10), For: sec(5), Fault: experiment.MemberUnreachable}}, "how: blackhole in a run on the cluster", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := base
			x.Timeline = tt.timeline
			err := nacosRegistry{}.Can(x)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Can refused: %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, rig.ErrCannot) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Can: %v, want an ErrCannot naming %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("Can: more than one line: %q", err)
			}
			if got := nacosOnCluster(x); got != tt.cluster {
				t.Errorf("on the cluster: %v, want %v", got, tt.cluster)
			}
			r := nacosRegistry{}.Rules(x).(Rules)
			if (r.Members == nacosMembers) != tt.cluster {
				t.Errorf("Rules for %d members, on the cluster %v", r.Members, tt.cluster)
			}
		})
	}
}

// TestNacosMemberFaultFor: the rules' longest member fault is a step's For, or the rest of the
// run for a step never healed; other faults do not count.
func TestNacosMemberFaultFor(t *testing.T) {
	sec := func(n int) experiment.Duration { return experiment.Duration(time.Duration(n) * time.Second) }
	tests := []struct {
		steps []experiment.Step
		want  time.Duration
	}{
		{[]experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.QuorumLoss}}, 18 * time.Second},
		{[]experiment.Step{{At: sec(3), Fault: experiment.CutOffMember}}, 27 * time.Second},
		{[]experiment.Step{{At: sec(1), For: sec(5), Fault: experiment.CutOffMember}, {At: sec(10), For: sec(9), Fault: experiment.QuorumLoss}}, 9 * time.Second},
		{[]experiment.Step{{At: sec(1), For: sec(20), Fault: experiment.Unreachable}}, 0},
	}
	for i, tt := range tests {
		x := experiment.Experiment{Duration: sec(30), Timeline: tt.steps}
		if got := nacosMemberFaultFor(x); got != tt.want {
			t.Errorf("case %d: %s, want %s", i, got, tt.want)
		}
	}
}

// TestNacosRefusesSpreadWithDroppedPackets: a spread comes from healing each instance's link at
// its own delay, which a drop on the members' ports cannot do: refused in one line.
func TestNacosRefusesSpreadWithDroppedPackets(t *testing.T) {
	sec := func(n int) experiment.Duration { return experiment.Duration(time.Duration(n) * time.Second) }
	x := experiment.Experiment{Name: "x", Summary: "x", Duration: sec(60), Instances: experiment.Instances{Count: 3, Spread: sec(10)},
		Timeline: []experiment.Step{{At: sec(3), For: sec(40), Fault: experiment.Unreachable, How: experiment.Drop}}}
	if err := (nacosRegistry{}).Can(x); err == nil || !errors.Is(err, rig.ErrCannot) || !strings.Contains(err.Error(), "spread") {
		t.Errorf("Can(spread + drop) = %v, want an ErrCannot naming the spread", err)
	}
}
