package nacos

import (
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestMemberRules: on a cluster every live member answers and registers under both member
// faults (Distro, AP), a quorum loss has no majority side, a standalone server has no member
// rule; reads fare whole while the members keep each other's clients (ClientExpired) and not
// beyond; after a quorum loss a real client recovers at once and a policy caller within the
// restart bound.
func TestMemberRules(t *testing.T) {
	cluster := Rules{Members: 3, MemberFault: 18 * time.Second, Restart: 8 * time.Minute}
	long := cluster
	long.MemberFault = ClientExpired + time.Second
	serves := []struct {
		r    Rules
		f    experiment.FaultKind
		role experiment.Role
		op   experiment.ProbeOp
		ok   bool
	}{
		{cluster, experiment.QuorumLoss, experiment.Survivor, experiment.List, true},
		{cluster, experiment.QuorumLoss, experiment.Survivor, experiment.Register, true},
		{cluster, experiment.QuorumLoss, experiment.Majority, experiment.List, false},
		{cluster, experiment.CutOffMember, experiment.CutOff, experiment.Register, true},
		{cluster, experiment.CutOffMember, experiment.Majority, experiment.List, true},
		{Rules{}, experiment.CutOffMember, experiment.CutOff, experiment.List, false},
	}
	for _, tt := range serves {
		b, ok := tt.r.MemberServes(tt.f, tt.role, tt.op, 5*time.Second)
		if ok != tt.ok || (ok && (b.Lo != 1 || b.Hi != 1 || !strings.Contains(b.Basis, "Distro"))) {
			t.Errorf("MemberServes(%d members, %s, %s, %s) = %+v, %v; want ok %v, 1–1 from Distro", tt.r.Members, tt.f, tt.role, tt.op, b, ok, tt.ok)
		}
	}
	reads := []struct {
		r    Rules
		f    experiment.FaultKind
		want experiment.Reads
	}{
		{cluster, experiment.QuorumLoss, experiment.ReadsAnswer},
		{long, experiment.QuorumLoss, experiment.ReadsSome},
		{cluster, experiment.CutOffMember, experiment.ReadsAnswer},
		{long, experiment.CutOffMember, experiment.ReadsSome},
	}
	for _, tt := range reads {
		if got, why := tt.r.MemberReads(tt.f); got != tt.want || why == "" {
			t.Errorf("MemberReads(%s, fault %s) = %s (%q), want %s", tt.f, tt.r.MemberFault, got, why, tt.want)
		}
	}
	for _, how := range []experiment.How{experiment.Kill, experiment.Blackhole} {
		if b, ok := cluster.ClientWhileUnreachable(string(Spring), how, 18*time.Second); !ok || b.Lo != 0 || b.Hi != 0 {
			t.Errorf("ClientWhileUnreachable(cluster, %s) = %+v, %v; want 0–0", how, b, ok)
		}
		if _, ok := long.ClientWhileUnreachable(string(Spring), how, long.MemberFault); ok {
			t.Errorf("ClientWhileUnreachable(%s beyond the copies' expiry) has a rule", how)
		}
	}
	killed := experiment.Outage{How: experiment.Kill}
	if d, _ := cluster.Recovery(experiment.Caller{Kind: experiment.RealClient}, killed, time.Second); d != 0 {
		t.Errorf("a real client's recovery after a quorum loss: %s, want 0", d)
	}
	if d, _ := cluster.Recovery(experiment.Caller{Kind: experiment.PolicyCaller}, killed, time.Second); d != cluster.Restart+2*time.Second {
		t.Errorf("a policy caller's recovery after a quorum loss: %s, want restart + refresh + 1 s", d)
	}
	if d, _ := cluster.Recovery(experiment.Caller{Kind: experiment.PolicyCaller}, experiment.Outage{How: experiment.Blackhole}, time.Second); d != 2*time.Second {
		t.Errorf("a policy caller's recovery after a cut: %s, want refresh + 1 s", d)
	}
}
