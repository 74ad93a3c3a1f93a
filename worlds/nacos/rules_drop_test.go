package nacos

import (
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestDropRules: with packets dropped a real client fails nothing while the loss holds; a loss
// from DropProbedFrom on may remove instances after the heal (the probe or its answer waits in
// TCP's back-off), so the recovery bound is the relist's, + Distro's sync on the cluster; below
// it nothing is removed; the list empties during the loss by the ejector's rule as for a
// blackhole, later on the cluster by Distro's sync; one member's packets dropped never empties
// the list and its callers recover at once.
func TestDropRules(t *testing.T) {
	real := experiment.Caller{Kind: experiment.RealClient, Client: string(Plain)}
	policy := experiment.Caller{Kind: experiment.PolicyCaller, Policy: experiment.Clear}
	drop := experiment.Outage{How: experiment.Drop, Cut: 18 * time.Second}
	tests := []struct {
		name         string
		r            Rules
		c            experiment.Caller
		o            experiment.Outage
		want         time.Duration
		basisMention string
	}{
		{"18 s on the cluster, real client", Rules{Loss: 18 * time.Second, SilentAtCut: ClientKeepAlive, Members: 3}, real, drop,
			RelistBy() + DistroSyncDelay + DeliverSlack, "retransmission"},
		{"18 s on the cluster, policy caller", Rules{Loss: 18 * time.Second, SilentAtCut: ClientKeepAlive, Members: 3}, policy, drop,
			RelistBy() + DistroSyncDelay + 2*time.Second, "Distro"},
		{"18 s standalone, real client", Rules{Loss: 18 * time.Second, SilentAtCut: ClientKeepAlive}, real, drop,
			RelistBy() + DeliverSlack, "retransmission"},
		{"10 s on the cluster", Rules{Loss: 10 * time.Second, SilentAtCut: ClientKeepAlive, Members: 3}, real, experiment.Outage{How: experiment.Drop, Cut: 10 * time.Second},
			0, "below"},
		{"18 s blackholed standalone", Rules{Loss: 18 * time.Second, SilentAtCut: ClientKeepAlive}, real, experiment.Outage{How: experiment.Blackhole, Cut: 18 * time.Second},
			0, "below"},
		{"a member's packets, policy", Rules{SilentAtCut: ClientKeepAlive, Members: 3, MemberFault: 18 * time.Second}, policy, experiment.Outage{How: experiment.Drop},
			2 * time.Second, "next server"},
	}
	for _, tt := range tests {
		got, why := tt.r.Recovery(tt.c, tt.o, time.Second)
		if got != tt.want || !strings.Contains(why, tt.basisMention) {
			t.Errorf("%s: Recovery = %s (%q), want %s mentioning %q", tt.name, got, why, tt.want, tt.basisMention)
		}
	}
	cluster := Rules{Loss: 40 * time.Second, SilentAtCut: ClientKeepAlive, Members: 3}
	for _, c := range []struct {
		d      time.Duration
		lo, hi float64
	}{{18 * time.Second, 0, 0}, {25 * time.Second, 0, 1}, {EmptyBy() + PushDelay + time.Second, 0, 1}, {40 * time.Second, 1, 1}} {
		b := cluster.RemovesSilent(experiment.Drop, c.d)
		if b.Lo != c.lo || b.Hi != c.hi || !strings.Contains(b.Basis, "each member") {
			t.Errorf("RemovesSilent(drop, %s) on the cluster = %+v, want %g–%g from each member's ejector", c.d, b, c.lo, c.hi)
		}
	}
	if b, ok := cluster.ClientWhileUnreachable(string(Spring), experiment.Drop, 40*time.Second); !ok || b.Lo != 0 || b.Hi != 0 {
		t.Errorf("ClientWhileUnreachable(drop) = %+v, %v; want 0–0", b, ok)
	}
	if b, ok := cluster.MemberRemoves(experiment.MemberUnreachable, 40*time.Second); !ok || b.Lo != 0 || b.Hi != 0 || !strings.Contains(b.Basis, "union") {
		t.Errorf("MemberRemoves(member-unreachable) = %+v, %v; want 0–0 from the union of the clients' registrations", b, ok)
	}
	for _, f := range []experiment.FaultKind{experiment.QuorumLoss, experiment.CutOffMember} {
		if _, ok := cluster.MemberRemoves(f, 18*time.Second); ok {
			t.Errorf("MemberRemoves(%s) has a rule", f)
		}
	}
	if _, ok := (Rules{}).MemberRemoves(experiment.MemberUnreachable, time.Second); ok {
		t.Error("MemberRemoves on a standalone server has a rule")
	}
	if got, _ := cluster.MemberReads(experiment.MemberUnreachable); got != experiment.ReadsSome {
		t.Errorf("MemberReads(member-unreachable) = %s, want some", got)
	}
	if _, ok := cluster.MemberServes(experiment.MemberUnreachable, experiment.CutOff, experiment.List, time.Second); ok {
		t.Error("MemberServes(member-unreachable) has a rule; the probe is not cut")
	}
}
