package zookeeper

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
)

// TestZooKeeperCan: the ZooKeeper world refuses, in one ErrCannot line, a
// ttl its members would not grant, a client it does not have; attached,
// the faults that need the members' processes; a spread (the instances'
// back-off before registering again) and a user's program it runs.
func TestZooKeeperCan(t *testing.T) {
	base := experiment.Experiment{Name: "x", Summary: "x", Duration: experiment.Duration(30 * time.Second), Instances: experiment.Instances{Count: 3},
		Callers:  []experiment.Caller{{Name: "keep", Kind: experiment.PolicyCaller, Policy: experiment.Keep}},
		Timeline: []experiment.Step{{At: experiment.Duration(time.Second), For: experiment.Duration(5 * time.Second), Fault: experiment.Unreachable}}}
	tests := []struct {
		name   string
		edit   func(*experiment.Experiment)
		want   string // "" = accepted
		attach string // "" = accepted attached
	}{
		{"the default", func(*experiment.Experiment) {}, "", ""},
		{"ttl 3s", func(x *experiment.Experiment) { x.Instances.TTL = experiment.Duration(3 * time.Second) }, "not a session timeout the members grant", ""},
		{"ttl 41s", func(x *experiment.Experiment) { x.Instances.TTL = experiment.Duration(41 * time.Second) }, "4s–40s", ""},
		{"spread", func(x *experiment.Experiment) { x.Instances.Spread = experiment.Duration(time.Second) }, "", ""},
		{"exec", func(x *experiment.Experiment) {
			x.Callers = append(x.Callers, experiment.Caller{Name: "mine", Kind: experiment.ExecClient, Command: []string{"true"}})
		}, "", ""},
		{"unknown client", func(x *experiment.Experiment) {
			x.Callers = append(x.Callers, experiment.Caller{Name: "g", Kind: experiment.RealClient, Client: etcd.EtcdRoundRobin})
		}, "has no client", ""},
		{"kill every member", func(x *experiment.Experiment) { x.Timeline[0].How = experiment.Kill }, "", "members' processes or peer links"},
		{"quorum loss", func(x *experiment.Experiment) {
			x.Timeline[0] = experiment.Step{At: experiment.Duration(time.Second), Fault: experiment.QuorumLoss}
		}, "", "quorum-loss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := base
			x.Callers = append([]experiment.Caller(nil), base.Callers...)
			x.Timeline = append([]experiment.Step(nil), base.Timeline...)
			tt.edit(&x)
			check := func(what string, err error, want string) {
				switch {
				case want == "" && err != nil:
					t.Errorf("%s refused: %v", what, err)
				case want != "" && (err == nil || !errors.Is(err, rig.ErrCannot) || !strings.Contains(err.Error(), want)):
					t.Errorf("%s: %v, want an ErrCannot naming %q", what, err, want)
				case err != nil && strings.Contains(err.Error(), "\n"):
					t.Errorf("%s: more than one line: %q", what, err)
				}
			}
			check("Can", zkRegistry{}.Can(x), tt.want)
			if tt.want == "" {
				check("CanAttached", zkRegistry{}.CanAttached(x), tt.attach)
			}
		})
	}
	if err := (zkRegistry{}).CheckTarget(rig.Target{Address: "10.0.0.5:2181"}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("CheckTarget(remote) = %v, want a refusal naming the loopback range", err)
	}
	if err := (zkRegistry{}).CheckTarget(rig.Target{Address: "10.0.0.5:2181", AllowRemote: true}); err != nil {
		t.Errorf("CheckTarget(remote, allowed) = %v", err)
	}
}
