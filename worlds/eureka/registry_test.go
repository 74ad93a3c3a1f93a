package eureka

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
	"sdchaos/worlds/eureka/eurekareal"
)

// neutral is a small experiment for the registry tests.
func neutral(steps ...experiment.Step) experiment.Experiment {
	return experiment.Experiment{Name: "x", Summary: "x", Duration: experiment.Duration(30 * time.Second),
		Instances: experiment.Instances{Count: 3},
		Callers:   []experiment.Caller{{Name: "keep", Kind: experiment.PolicyCaller, Policy: experiment.Keep}},
		Timeline:  steps}
}

// TestEurekaRegistryCan: real Eureka makes every neutral fault but refuses,
// in one line matching ErrCannot, what it has not: a leader, a lease that is
// not whole seconds of at least 3 s, a delay before a re-registration, a
// client of another world; a user's program it runs.
func TestEurekaRegistryCan(t *testing.T) {
	reg, err := rig.RegistryFor(Name)
	if err != nil {
		t.Fatal(err)
	}
	unreachable := experiment.Step{At: experiment.Duration(time.Second), For: experiment.Duration(time.Second), Fault: experiment.Unreachable}
	withTTL := func(d time.Duration) experiment.Experiment {
		x := neutral(unreachable)
		x.Instances.TTL = experiment.Duration(d)
		return x
	}
	withCaller := func(c experiment.Caller) experiment.Experiment {
		x := neutral(unreachable)
		x.Callers = append(x.Callers, c)
		return x
	}
	tests := []struct {
		name string
		x    experiment.Experiment
		want string
	}{
		{"blackhole", neutral(unreachable), ""},
		{"kill", neutral(experiment.Step{At: 1, Fault: experiment.Unreachable, How: experiment.Kill}), ""},
		{"crash, quorum loss, cut-off follower", neutral(experiment.Step{Fault: experiment.CrashInstance},
			experiment.Step{Fault: experiment.QuorumLoss}, experiment.Step{Fault: experiment.CutOffMember}), ""},
		{"a 20 s lease", withTTL(20 * time.Second), ""},
		{"the leader", neutral(experiment.Step{Fault: experiment.CutOffMember, Which: experiment.Leader}), "no leader"},
		{"a lease of 1.5 s", withTTL(1500 * time.Millisecond), "whole seconds, at least 3 s"},
		{"a lease of 2.5 s", withTTL(2500 * time.Millisecond), "whole seconds"},
		{"etcd's client", withCaller(experiment.Caller{Name: "g", Kind: experiment.RealClient, Client: etcd.EtcdPickFirst}), `no client "grpc-pick-first"`},
		{"a spread of re-registrations", func() experiment.Experiment {
			x := neutral(unreachable)
			x.Instances.Spread = experiment.Duration(10 * time.Second)
			return x
		}(), "cannot spread re-registrations"},
		{"a user's program", withCaller(experiment.Caller{Name: "u", Kind: experiment.ExecClient, Command: []string{"true"}}), ""},
		{"the Java client", withCaller(experiment.Caller{Name: "j", Kind: experiment.RealClient, Client: eurekareal.JavaClient}), ""},
	}
	for _, tc := range tests {
		err := reg.Can(tc.x)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, rig.ErrCannot)):
			t.Errorf("%s: %v, want an ErrCannot containing %q", tc.name, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: %q is more than one line", tc.name, err)
		}
	}
}

// TestEurekaConfigFromTTL: the lease is the experiment's ttl, renewed every
// third of it in whole seconds (Eureka's 30 s of 90 s by default).
func TestEurekaConfigFromTTL(t *testing.T) {
	tests := []struct{ ttl, lease, renew time.Duration }{
		{0, 90 * time.Second, 30 * time.Second},
		{20 * time.Second, 20 * time.Second, 6 * time.Second},
		{3 * time.Second, 3 * time.Second, time.Second},
		{90 * time.Second, 90 * time.Second, 30 * time.Second},
	}
	for _, tc := range tests {
		x := neutral()
		x.Instances.TTL = experiment.Duration(tc.ttl)
		c := eurekaConfig(x)
		if c.LeaseDuration != tc.lease || c.RenewInterval != tc.renew {
			t.Errorf("ttl %s: lease %s renew %s, want %s and %s", tc.ttl, c.LeaseDuration, c.RenewInterval, tc.lease, tc.renew)
		}
		if _, err := eurekaProps(x); err != nil {
			t.Errorf("ttl %s: %v", tc.ttl, err)
		}
	}
}

// TestEurekaExpandsAllToTheJavaClient: client: all is the Java client.
func TestEurekaExpandsAllToTheJavaClient(t *testing.T) {
	reg, _ := rig.RegistryFor(Name)
	x := neutral()
	x.Callers = append(x.Callers, experiment.Caller{Name: "real", Kind: experiment.RealClient, Client: rig.AllClients})
	got := rig.ExpandClients(reg, x).Callers
	if len(got) != 2 || got[1].Name != eurekareal.JavaClient || got[1].Client != eurekareal.JavaClient {
		t.Errorf("expanded callers %+v, want keep and %s", got, eurekareal.JavaClient)
	}
}
