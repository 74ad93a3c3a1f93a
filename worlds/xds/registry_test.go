package xds

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// TestXDSCan: the xDS world refuses, in one ErrCannot line, what it cannot
// make (dropped packets, a member cut off, a user's program, a ttl the
// instances cannot keep, a client it does not have) and accepts the
// registry-neutral faults it makes.
func TestXDSCan(t *testing.T) {
	base := experiment.Experiment{Name: "x", Summary: "x", Duration: experiment.Duration(30 * time.Second), Instances: experiment.Instances{Count: 3},
		Callers: []experiment.Caller{{Name: "keep", Kind: experiment.PolicyCaller, Policy: experiment.Keep},
			{Name: "real", Kind: experiment.RealClient, Client: rig.AllClients}},
		Timeline: []experiment.Step{{At: experiment.Duration(time.Second), For: experiment.Duration(5 * time.Second), Fault: experiment.Unreachable}}}
	tests := []struct {
		name string
		edit func(*experiment.Experiment)
		want string // "" = accepted
	}{
		{"the default", func(*experiment.Experiment) {}, ""},
		{"kill every member", func(x *experiment.Experiment) { x.Timeline[0].How = experiment.Kill }, ""},
		{"quorum loss", func(x *experiment.Experiment) {
			x.Timeline[0] = experiment.Step{At: experiment.Duration(time.Second), For: experiment.Duration(5 * time.Second), Fault: experiment.QuorumLoss}
		}, ""},
		{"crash", func(x *experiment.Experiment) {
			x.Timeline = append(x.Timeline, experiment.Step{At: experiment.Duration(2 * time.Second), Fault: experiment.CrashInstance})
		}, ""},
		{"drop", func(x *experiment.Experiment) { x.Timeline[0].How = experiment.Drop }, "how: drop"},
		{"cut off", func(x *experiment.Experiment) {
			x.Timeline[0] = experiment.Step{At: experiment.Duration(time.Second), For: experiment.Duration(5 * time.Second), Fault: experiment.CutOffMember}
		}, ""},
		{"ttl 1s", func(x *experiment.Experiment) { x.Instances.TTL = experiment.Duration(time.Second) }, "instances.ttl"},
		{"exec", func(x *experiment.Experiment) {
			x.Callers = append(x.Callers, experiment.Caller{Name: "mine", Kind: experiment.ExecClient, Command: []string{"true"}})
		}, "no user's program"},
		{"unknown client", func(x *experiment.Experiment) {
			x.Callers = append(x.Callers, experiment.Caller{Name: "g", Kind: experiment.RealClient, Client: "grpc-round-robin"})
		}, "has no client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := base
			x.Callers = append([]experiment.Caller(nil), base.Callers...)
			x.Timeline = append([]experiment.Step(nil), base.Timeline...)
			tt.edit(&x)
			err := xdsRegistry{}.Can(x)
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

// TestXDSRegistered: the world is registered as "xds", names its modules'
// versions and both bootstrap feature sets, and offers both clients.
func TestXDSRegistered(t *testing.T) {
	r, err := rig.RegistryFor(Name)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Describe()
	for _, want := range []string{"go-control-plane v", "gRPC-Go v", featureXDSv3, ServerFeatureIgnoreResourceDeletion} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() = %q, missing %q", d, want)
		}
	}
	if cs := r.Clients(); len(cs) != 2 || cs[0].Name != ClientXDS || cs[1].Name != ClientXDSIgnoreDeletion {
		t.Errorf("Clients() = %+v", cs)
	}
}

// TestExperimentRulesBands: the bands follow the control plane's policy
// and the parameters, and each can be missed.
func TestExperimentRulesBands(t *testing.T) {
	keep := ExperimentRules{ControlPlane: DefaultControlPlaneSettings(Service), TTL: 20 * time.Second, CallTimeout: time.Second}
	clear := keep
	clear.ControlPlane.OnWatchFail = ClearEndpoints
	if b, ok := keep.ClientWhileUnreachable(ClientXDS, experiment.Blackhole, 18*time.Second); !ok || b.Lo != 0 || b.Hi != 0 || b.Basis == "" {
		t.Errorf("keep: ClientWhileUnreachable = %+v, %v; want exactly 0 %% with a basis", b, ok)
	}
	// clear: noticed within 0.5 + 1 s, + 1 s for the push: (18 − 2.5)/18.
	if b, ok := clear.ClientWhileUnreachable(ClientXDSIgnoreDeletion, experiment.Blackhole, 18*time.Second); !ok || b.Hi != 100 || b.Lo < 86 || b.Lo > 86.2 {
		t.Errorf("clear: ClientWhileUnreachable = %+v, %v; want 86.1–100 %%", b, ok)
	}
	if _, ok := keep.ClientWhileUnreachable("curator-servicecache", experiment.Blackhole, time.Second); ok {
		t.Error("a client of another world has a rule here")
	}
	if b, ok := keep.ClientAfterCrash(ClientXDS, 3, 40, 12*time.Second); !ok || b.Lo != 0 || b.Hi != 40 {
		t.Errorf("ClientAfterCrash = %+v, %v; want 0–40 (rate 40 × 1 s)", b, ok)
	}
	pc := experiment.Caller{Name: "keep", Kind: experiment.PolicyCaller}
	if d, why := keep.Recovery(pc, experiment.Outage{}, time.Second); d != 3*time.Second || why == "" {
		t.Errorf("Recovery(policy) = %s, want 0.5 + 1 + 1 + 0.5 s", d)
	}
	if reads, _ := clear.MemberReads(experiment.QuorumLoss); reads != experiment.ReadsFail {
		t.Errorf("clear: MemberReads = %s, want fail", reads)
	}
}
