package dns

import (
	"math"
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestRulesCanFail checks the world's answers are bands a run can miss:
// a held path fails every lookup (100 %), serve_stale through a quorum
// loss none, gRPC none; the refresh bound is bounded above; a crash band
// is narrow; and where there is no rule the answer says so.
func TestRulesCanFail(t *testing.T) {
	r := RulesFor(DefaultOptions(experiment.Experiment{Instances: experiment.Instances{Count: 3}}))
	cases := []struct {
		client  string
		how     experiment.How
		lo, hi  float64
		hasRule bool
	}{
		{ClientGo, experiment.Blackhole, 100, 100, true},
		{ClientGoStale, experiment.Blackhole, 100, 100, true},
		{ClientGo, experiment.KillQuorum, 100, 100, true},
		{ClientGoStale, experiment.KillQuorum, 0, 0, true},
		{ClientGRPC, experiment.Blackhole, 0, 0, true},
		{ClientGRPC, experiment.KillQuorum, 0, 0, true},
		{"nope", experiment.Blackhole, 0, 0, false},
	}
	for _, c := range cases {
		b, ok := r.ClientWhileUnreachable(c.client, c.how, 18*time.Second)
		if ok != c.hasRule || (ok && (b.Lo != c.lo || b.Hi != c.hi || b.Basis == "")) {
			t.Errorf("%s %s: %v %v, want [%v, %v] %v", c.client, c.how, b, ok, c.lo, c.hi, c.hasRule)
		}
	}
	lo, hi, basis := r.RefreshFails(experiment.Blackhole, time.Second, 500*time.Millisecond)
	if lo != 450*time.Millisecond || hi != 1550*time.Millisecond || basis == "" {
		t.Errorf("RefreshFails(blackhole) = %s–%s %q", lo, hi, basis)
	}
	if _, hi, _ := r.RefreshFails(experiment.KillQuorum, time.Second, 500*time.Millisecond); hi != 1550*time.Millisecond {
		t.Errorf("RefreshFails(kill) hi = %s", hi)
	}
	b, ok := r.ClientAfterCrash(ClientGo, 3, 40, 12*time.Second)
	if !ok || b.Lo != 559 || b.Hi != 561 {
		t.Errorf("ClientAfterCrash(go, 40/s, 12 s) = %v %v, want 559–561 (40 × 14 s ± 1)", b, ok)
	}
	if b, ok := r.ClientAfterCrash(ClientGRPC, 3, 40, 12*time.Second); !ok || b.Lo != 0 || b.Hi != math.Ceil(40*r.CallTimeout.Seconds()) {
		t.Errorf("ClientAfterCrash(grpc, 40/s) = %v %v, want 0 to the calls in flight at the crash (40 × the call deadline)", b, ok)
	}
	if b := r.RemovesSilent(experiment.Blackhole, time.Hour); b.Hi != 0 {
		t.Errorf("RemovesSilent(blackhole, 1 h) = %v: the instances renew beside the held path", b)
	}
	pol := experiment.Caller{Name: "keep", Kind: experiment.PolicyCaller}
	if d, _ := r.Recovery(pol, experiment.Outage{How: experiment.KillQuorum}, time.Second); d != r.electionBound()+2*time.Second {
		t.Errorf("Recovery(policy, kill) = %s", d)
	}
}

// TestKilledServersRules: every CoreDNS server killed, Go's resolver fails every lookup through
// either server (the relay keeps the refusal, the cache died with the server), gRPC keeps its
// addresses, a policy refresh fails at its deadline, nothing is removed from etcd, and the
// recovery waits for the restart's allowance; serve_stale's client recovers like the others.
func TestKilledServersRules(t *testing.T) {
	r := RulesFor(DefaultOptions(experiment.Experiment{Instances: experiment.Instances{Count: 3}}))
	for _, c := range []struct {
		client string
		lo, hi float64
	}{{ClientGo, 100, 100}, {ClientGoStale, 100, 100}, {ClientGRPC, 0, 0}} {
		if b, ok := r.ClientWhileUnreachable(c.client, experiment.Kill, 18*time.Second); !ok || b.Lo != c.lo || b.Hi != c.hi || b.Basis == "" {
			t.Errorf("ClientWhileUnreachable(%s, kill) = %v %v, want [%v, %v]", c.client, b, ok, c.lo, c.hi)
		}
	}
	if lo, hi, _ := r.RefreshFails(experiment.Kill, time.Second, 500*time.Millisecond); lo != 450*time.Millisecond || hi != 1550*time.Millisecond {
		t.Errorf("RefreshFails(kill) = %s–%s, want 450ms–1.55s", lo, hi)
	}
	if b := r.RemovesSilent(experiment.Kill, time.Hour); b.Hi != 0 {
		t.Errorf("RemovesSilent(kill, 1 h) = %v: the instances renew on etcd", b)
	}
	stale := experiment.Caller{Name: "go-resolver-stale", Kind: experiment.RealClient, Client: ClientGoStale}
	if d, _ := r.Recovery(stale, experiment.Outage{How: experiment.Kill}, time.Second); d != StartTimeout+lookupTimeout {
		t.Errorf("Recovery(stale client, kill) = %s, want the restart allowance + a lookup's deadline", d)
	}
}

// TestMemberCutRules: with one etcd member cut off, the cut member serves
// nothing, the two others serve once they elected (either before), reads
// fare "some" (the plugin's balancer sends the cut member its share),
// serve_stale and gRPC fail nothing, Go's resolver without a cache has no
// rule, and the recovery waits for a held lookup and the member's rejoin.
func TestMemberCutRules(t *testing.T) {
	r := RulesFor(DefaultOptions(experiment.Experiment{Instances: experiment.Instances{Count: 3}}))
	serves := []struct {
		role   experiment.Role
		since  time.Duration
		lo, hi float64
	}{
		{experiment.CutOff, 5 * time.Second, 0, 0},
		{experiment.Majority, r.electionBound(), 1, 1},
		{experiment.Majority, 100 * time.Millisecond, 0, 1},
	}
	for _, c := range serves {
		b, ok := r.MemberServes(experiment.CutOffMember, c.role, experiment.List, c.since)
		if !ok || b.Lo != c.lo || b.Hi != c.hi || b.Basis == "" {
			t.Errorf("MemberServes(%s, %s) = %v %v, want [%v, %v]", c.role, c.since, b, ok, c.lo, c.hi)
		}
	}
	if reads, why := r.MemberReads(experiment.CutOffMember); reads != experiment.ReadsSome || why == "" {
		t.Errorf("MemberReads(cut-off) = %s %q, want some", reads, why)
	}
	clients := []struct {
		client  string
		hasRule bool
	}{{ClientGoStale, true}, {ClientGRPC, true}, {ClientGo, false}}
	for _, c := range clients {
		b, ok := r.ClientWhileUnreachable(c.client, experiment.CutPeers, 18*time.Second)
		if ok != c.hasRule || (ok && (b.Lo != 0 || b.Hi != 0)) {
			t.Errorf("ClientWhileUnreachable(%s, cut) = %v %v, want rule %v of 0", c.client, b, ok, c.hasRule)
		}
	}
	pol := experiment.Caller{Name: "clear", Kind: experiment.PolicyCaller}
	if d, _ := r.Recovery(pol, experiment.Outage{How: experiment.CutPeers}, time.Second); d != lookupTimeout+r.electionBound()+2*time.Second {
		t.Errorf("Recovery(policy, cut) = %s", d)
	}
}
