package zookeeper

import (
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestRulesMemberServes: each role's band at the moments the neutral
// experiments probe, on ZooKeeper's sample timing (tick 2 s, syncLimit 5,
// initLimit 10): a cut follower reads until 10 s, a cut leader until 12 s;
// the followers of a cut leader elect within 10 s + 20.4 s.
func TestRulesMemberServes(t *testing.T) {
	type band struct{ lo, hi float64 }
	tests := []struct {
		name  string
		which experiment.Which
		fault experiment.FaultKind
		role  experiment.Role
		op    experiment.ProbeOp
		since time.Duration
		want  band
		ok    bool
	}{
		{"quorum loss: the survivor refuses", "", experiment.QuorumLoss, experiment.Survivor, experiment.List, 2 * time.Second, band{0, 0}, true},
		{"quorum loss: right at the kill", "", experiment.QuorumLoss, experiment.Survivor, experiment.List, 500 * time.Millisecond, band{0, 1}, true},
		{"quorum loss: no majority side", "", experiment.QuorumLoss, experiment.Majority, experiment.List, 2 * time.Second, band{}, false},
		{"cut follower reads early", experiment.Follower, experiment.CutOffMember, experiment.CutOff, experiment.List, 2 * time.Second, band{1, 1}, true},
		{"cut follower near its timeout", experiment.Follower, experiment.CutOffMember, experiment.CutOff, experiment.List, 8 * time.Second, band{0, 1}, true},
		{"cut follower after its timeout", experiment.Follower, experiment.CutOffMember, experiment.CutOff, experiment.List, 12 * time.Second, band{0, 0}, true},
		{"cut leader reads at 9 s", experiment.Leader, experiment.CutOffMember, experiment.CutOff, experiment.List, 9 * time.Second, band{0, 1}, true},
		{"cut leader reads at 5 s", experiment.Leader, experiment.CutOffMember, experiment.CutOff, experiment.List, 5 * time.Second, band{1, 1}, true},
		{"cut member never registers", experiment.Follower, experiment.CutOffMember, experiment.CutOff, experiment.Register, time.Second, band{0, 0}, true},
		{"a follower cut: the majority serves", experiment.Follower, experiment.CutOffMember, experiment.Majority, experiment.Register, time.Second, band{1, 1}, true},
		{"the leader cut: majority writes wait", experiment.Leader, experiment.CutOffMember, experiment.Majority, experiment.Register, 2 * time.Second, band{0, 0}, true},
		{"the leader cut: majority reads early", experiment.Leader, experiment.CutOffMember, experiment.Majority, experiment.List, 2 * time.Second, band{1, 1}, true},
		{"the leader cut: majority electing", experiment.Leader, experiment.CutOffMember, experiment.Majority, experiment.List, 15 * time.Second, band{0, 1}, true},
		{"the leader cut: majority elected", experiment.Leader, experiment.CutOffMember, experiment.Majority, experiment.Register, 32 * time.Second, band{1, 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Rules{Config: DefaultConfig(), Session: ArticleSessionTimeout, Which: tt.which}
			b, ok := r.MemberServes(tt.fault, tt.role, tt.op, tt.since)
			if ok != tt.ok || (ok && (b.Lo != tt.want.lo || b.Hi != tt.want.hi)) {
				t.Errorf("MemberServes = [%g, %g] %v (%s); want [%g, %g] %v", b.Lo, b.Hi, ok, b.Basis, tt.want.lo, tt.want.hi, tt.ok)
			}
		})
	}
}

// TestRulesRemovesSilent: with the links blackholed, a 20 s session's node
// goes between 13.3 s (the last ping a third of the timeout before the
// cut) and 23 s (a tick and a second after the timeout); never while the
// members are dead.
func TestRulesRemovesSilent(t *testing.T) {
	r := Rules{Config: DefaultConfig(), Session: 20 * time.Second}
	for _, tt := range []struct {
		how    experiment.How
		d      time.Duration
		lo, hi float64
	}{
		{experiment.Blackhole, 12 * time.Second, 0, 0},
		{experiment.Blackhole, 18 * time.Second, 0, 1},
		{experiment.Blackhole, 24 * time.Second, 1, 1},
		{experiment.Kill, 60 * time.Second, 0, 0},
	} {
		if b := r.RemovesSilent(tt.how, tt.d); b.Lo != tt.lo || b.Hi != tt.hi {
			t.Errorf("RemovesSilent(%s, %s) = [%g, %g], want [%g, %g]", tt.how, tt.d, b.Lo, b.Hi, tt.lo, tt.hi)
		}
	}
}

// TestRulesClients: the Curator cache never fails while unreachable, and
// fails one call in n for a crashed instance; Spring's LoadBalancer is not
// judged in an outage its 35 s cache may span (its phase decides), and fails at
// least the calls after the cache's ttl in a longer one.
func TestRulesClients(t *testing.T) {
	r := Rules{Config: DefaultConfig(), Session: ArticleSessionTimeout}
	if b, ok := r.ClientWhileUnreachable(ClientCurator, experiment.Blackhole, 18*time.Second); !ok || b.Hi != 0 {
		t.Errorf("curator while unreachable: [%g, %g] %v, want = 0", b.Lo, b.Hi, ok)
	}
	if _, ok := r.ClientWhileUnreachable(ClientSpring, experiment.Blackhole, 18*time.Second); ok {
		t.Error("spring while unreachable for 18 s: judged; its LoadBalancer cache's phase decides all or nothing, so it must not be")
	}
	if b, ok := r.ClientWhileUnreachable(ClientSpring, experiment.Blackhole, 120*time.Second); !ok || b.Lo != 70 || b.Hi != 100 {
		t.Errorf("spring while unreachable for 120 s: [%g, %g] %v, want [70, 100] (the calls after the cache's 35 s + 1 s fail)", b.Lo, b.Hi, ok)
	}
	if b, ok := r.ClientAfterCrash(ClientCurator, 3, 40, 6*time.Second); !ok || b.Lo != 78 || b.Hi != 82 {
		t.Errorf("curator after a crash: [%g, %g] %v, want [78, 82] (80 calls ± 2)", b.Lo, b.Hi, ok)
	}
	lo, hi, _ := r.RefreshFails(experiment.Blackhole, time.Second, 500*time.Millisecond)
	if lo != 0 || hi != 1550*time.Millisecond {
		t.Errorf("RefreshFails(blackhole) = %s–%s, want 0–1.55s (a refresh in flight at the cut fails at its deadline)", lo, hi)
	}
	if lo, _, _ := r.RefreshFails(experiment.Kill, time.Second, 500*time.Millisecond); lo != 0 {
		t.Errorf("RefreshFails(kill) starts at %s, want 0 (the closed socket fails a queued read at once)", lo)
	}
}

// TestRulesRejoinWindow: the registrants come back within their spread
// plus the 2 s of the answer, the new session and the create; at once
// (spread 0) nothing bounds how many land together.
func TestRulesRejoinWindow(t *testing.T) {
	tests := []struct {
		spread, span, over time.Duration
	}{
		{0, 2 * time.Second, 0},
		{10 * time.Second, 12 * time.Second, 10 * time.Second},
	}
	for _, tc := range tests {
		span, over, basis := Rules{Session: 20 * time.Second}.RejoinWindow(experiment.Blackhole, tc.spread)
		if span != tc.span || over != tc.over || basis == "" {
			t.Errorf("RejoinWindow(spread %s) = %s, %s, %q; want %s, %s and a basis", tc.spread, span, over, basis, tc.span, tc.over)
		}
	}
}

// TestRulesRecovery: with 20 s sessions a cut shorter than two thirds of
// the timeout leaves every session (Curator's cache kept its list, 0);
// an 18 s cut may outlast them, so every reader's bound covers the
// registrants' re-registration (Relisted: 4 s at once, + spread) and its
// own lag; a kill expires nothing (the restart allowance alone).
func TestRulesRecovery(t *testing.T) {
	r := Rules{Config: DefaultConfig(), Session: ArticleSessionTimeout}
	policy := experiment.Caller{Kind: experiment.PolicyCaller, Policy: experiment.Keep}
	curator := experiment.Caller{Kind: experiment.RealClient, Client: ClientCurator}
	spring := experiment.Caller{Kind: experiment.RealClient, Client: ClientSpring}
	blackhole := func(cut, spread time.Duration) experiment.Outage {
		return experiment.Outage{How: experiment.Blackhole, Cut: cut, Spread: spread}
	}
	tests := []struct {
		name string
		c    experiment.Caller
		o    experiment.Outage
		want time.Duration
	}{
		{"curator, sessions outlive a 12 s cut", curator, blackhole(12*time.Second, 0), 0},
		{"policy, sessions outlive a 12 s cut", policy, blackhole(12*time.Second, 0), 4 * time.Second},
		{"spring, sessions outlive a 12 s cut", spring, blackhole(12*time.Second, 0), 2 * time.Second},
		{"curator, an 18 s cut may expire them", curator, blackhole(18*time.Second, 0), 5 * time.Second},
		{"policy, an 18 s cut may expire them", policy, blackhole(18*time.Second, 0), 6 * time.Second},
		{"spring, an 18 s cut may expire them", spring, blackhole(18*time.Second, 0), 5 * time.Second},
		{"curator, expired for sure, rejoin spread 10 s", curator, blackhole(40*time.Second, 10*time.Second), 15 * time.Second},
		{"curator, no cut (a member fault)", curator, blackhole(0, 0), 0},
		{"curator, members killed for 18 s", curator, experiment.Outage{How: experiment.Kill, Cut: 18 * time.Second}, 0},
		{"policy, members killed for 18 s", policy, experiment.Outage{How: experiment.Kill, Cut: 18 * time.Second}, 4*time.Second + RestartAllowance},
	}
	for _, tc := range tests {
		if got, why := r.Recovery(tc.c, tc.o, time.Second); got != tc.want || why == "" {
			t.Errorf("%s: %s (%q), want %s", tc.name, got, why, tc.want)
		}
	}
}
