package eurekareal

import (
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
)

// TestRulesRefreshFails: a blackholed link fails a policy caller's refresh
// at its deadline, a killed server's refused port at once.
func TestRulesRefreshFails(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	tests := []struct {
		how    experiment.How
		lo, hi time.Duration
	}{
		{experiment.Blackhole, 450 * time.Millisecond, 1550 * time.Millisecond},
		{experiment.Kill, 0, 1050 * time.Millisecond},
	}
	for _, tc := range tests {
		lo, hi, basis := r.RefreshFails(tc.how, time.Second, 500*time.Millisecond)
		if lo != tc.lo || hi != tc.hi || basis == "" {
			t.Errorf("%s: [%s, %s] %q, want [%s, %s] with a basis", tc.how, lo, hi, basis, tc.lo, tc.hi)
		}
	}
}

// TestRulesClients: the Java client fails nothing while the registry is
// unreachable (its cache holds), and about 1/n of its calls once one of n
// instances died; a client the world does not have has no rule.
func TestRulesClients(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	if b, ok := r.ClientWhileUnreachable(JavaClient, experiment.Blackhole, 18*time.Second); !ok || b.Lo != 0 || b.Hi != 0 {
		t.Errorf("while unreachable: %+v %v, want exactly 0", b, ok)
	}
	if _, ok := r.ClientWhileUnreachable("grpc-pick-first", experiment.Blackhole, time.Second); ok {
		t.Error("a client eureka does not have got a rule")
	}
	tests := []struct {
		n      int
		rate   float64
		w      time.Duration
		lo, hi float64
	}{
		// 480 calls, p = 1/3: mean 160, sd 10.33: 160 ± 34.1, ± 2.
		{3, 40, 12 * time.Second, 123, 197},
		// 40 calls, p = 1/2: mean 20, sd 3.16: 20 ± 10.4, ± 2.
		{2, 40, time.Second, 7, 33},
		// one instance: every call fails.
		{1, 40, time.Second, 38, 42},
	}
	for _, tc := range tests {
		b, ok := r.ClientAfterCrash(JavaClient, tc.n, tc.rate, tc.w)
		if !ok || b.Lo != tc.lo || b.Hi != tc.hi || !strings.Contains(b.Basis, "Binomial") {
			t.Errorf("n=%d rate=%g w=%s: %+v %v, want [%g, %g]", tc.n, tc.rate, tc.w, b, ok, tc.lo, tc.hi)
		}
	}
}

// TestRulesRecovery: after a blackhole the policy caller's next refresh
// answers and the Java client lost nothing; after a kill the servers come
// back empty, so recovery waits for the restart, a renewal, the response
// cache and a read.
func TestRulesRecovery(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	policy := experiment.Caller{Kind: experiment.PolicyCaller, Policy: experiment.Keep}
	java := experiment.Caller{Kind: experiment.RealClient, Client: JavaClient}
	tests := []struct {
		c    experiment.Caller
		how  experiment.How
		want time.Duration
	}{
		{policy, experiment.Blackhole, 2 * time.Second},
		{java, experiment.Blackhole, 0},
		{policy, experiment.Kill, DefaultReadyTimeout + 30*time.Second + 30*time.Second + time.Second + time.Second},
		{java, experiment.Kill, DefaultReadyTimeout + 30*time.Second + 30*time.Second + 30*time.Second + time.Second},
	}
	for _, tc := range tests {
		if got, why := r.Recovery(tc.c, experiment.Outage{How: tc.how, Cut: 18 * time.Second}, time.Second); got != tc.want || why == "" {
			t.Errorf("%s %s: %s (%q), want %s", tc.c.Kind, tc.how, got, why, tc.want)
		}
	}
	r.Restart = 6 * time.Minute
	if got, _ := r.Recovery(policy, experiment.Outage{How: experiment.Kill, Cut: 18 * time.Second}, time.Second); got != 6*time.Minute+62*time.Second {
		t.Errorf("with a 6 min start-up allowance: %s, want 7m2s", got)
	}
}

// TestRulesRecoveryLapsed: a blackhole that may outlast a lease (≥ 90 s −
// 30 s with the defaults) lets the server evict it: the bound then covers
// the instance's registering again (Relisted: renew + cache update + 2 s)
// and the reader's next read; a shorter cut does not.
func TestRulesRecoveryLapsed(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	policy := experiment.Caller{Kind: experiment.PolicyCaller, Policy: experiment.Keep}
	java := experiment.Caller{Kind: experiment.RealClient, Client: JavaClient}
	tests := []struct {
		c    experiment.Caller
		cut  time.Duration
		want time.Duration
	}{
		{policy, 59 * time.Second, 2 * time.Second},
		{java, 59 * time.Second, 0},
		{policy, 61 * time.Second, 30*time.Second + 30*time.Second + 2*time.Second + time.Second},
		{java, 61 * time.Second, 30*time.Second + 30*time.Second + 2*time.Second + 30*time.Second},
		{java, 5 * time.Minute, 30*time.Second + 30*time.Second + 2*time.Second + 30*time.Second},
	}
	for _, tc := range tests {
		if got, _ := r.Recovery(tc.c, experiment.Outage{How: experiment.Blackhole, Cut: tc.cut}, time.Second); got != tc.want {
			t.Errorf("%s after a %s cut: %s, want %s", tc.c.Kind, tc.cut, got, tc.want)
		}
	}
}

// TestRulesRemovesSilent: with Eureka's defaults no lease can expire within
// 60 s of the cut (90 s lease, 30 s renewals); after it self-preservation
// may or may not stop the eviction; a kill empties the registry.
func TestRulesRemovesSilent(t *testing.T) {
	on := Rules{Props: DefaultProps()}
	offProps := DefaultProps()
	offProps.SelfPreservation = false
	off := Rules{Props: offProps}
	tests := []struct {
		name   string
		r      Rules
		how    experiment.How
		d      time.Duration
		lo, hi float64
	}{
		{"18 s cut", on, experiment.Blackhole, 18 * time.Second, 0, 0},
		{"59 s cut", on, experiment.Blackhole, 59 * time.Second, 0, 0},
		{"5 min cut, self-preservation on", on, experiment.Blackhole, 5 * time.Minute, 0, 1},
		{"2 min cut, self-preservation off", off, experiment.Blackhole, 2 * time.Minute, 0, 1},
		{"5 min cut, self-preservation off", off, experiment.Blackhole, 5 * time.Minute, 1, 1},
		{"killed and restarted", on, experiment.Kill, time.Second, 1, 1},
	}
	for _, tc := range tests {
		if b := tc.r.RemovesSilent(tc.how, tc.d); b.Lo != tc.lo || b.Hi != tc.hi || b.Basis == "" {
			t.Errorf("%s: %+v, want [%g, %g] with a basis", tc.name, b, tc.lo, tc.hi)
		}
	}
}

// TestRulesMemberServes: every server answers alone (AP), whatever its
// role; a quorum loss has no majority side to ask.
func TestRulesMemberServes(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	tests := []struct {
		f    experiment.FaultKind
		role experiment.Role
		op   experiment.ProbeOp
		ok   bool
	}{
		{experiment.QuorumLoss, experiment.Survivor, experiment.List, true},
		{experiment.QuorumLoss, experiment.Survivor, experiment.Register, true},
		{experiment.QuorumLoss, experiment.Majority, experiment.List, false},
		{experiment.CutOffMember, experiment.CutOff, experiment.Register, true},
		{experiment.CutOffMember, experiment.Majority, experiment.List, true},
	}
	for _, tc := range tests {
		b, ok := r.MemberServes(tc.f, tc.role, tc.op, time.Second)
		if ok != tc.ok || ok && (b.Lo != 1 || b.Hi != 1 || !strings.Contains(b.Basis, "AP")) {
			t.Errorf("%s %s %s: %+v %v, want ok=%v and always", tc.f, tc.role, tc.op, b, ok, tc.ok)
		}
	}
}

// TestRulesRelisted: a returning instance is listed after its next
// heartbeat and the response cache's next update.
func TestRulesRelisted(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	if d, why := r.Relisted(10, 5*time.Second); d != 67*time.Second || why == "" {
		t.Errorf("Relisted = %s (%q), want 67s", d, why)
	}
}

// TestRulesRejoinWindow: instances whose lease is gone come back at their
// next heartbeat, within one renewal interval, all possibly at once.
func TestRulesRejoinWindow(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	for _, spread := range []time.Duration{0, 10 * time.Second} {
		span, over, why := r.RejoinWindow(experiment.Blackhole, spread)
		if span != 31*time.Second || over != 0 || !strings.Contains(why, "DiscoveryClient.renew") {
			t.Errorf("RejoinWindow(%s) = %s, %s (%q), want 31s, 0", spread, span, over, why)
		}
	}
}

// TestRulesMemberReads: every server answers a read from its own
// registry, under a quorum loss (the killed ones refuse: the reader moves
// on) and with one cut off.
func TestRulesMemberReads(t *testing.T) {
	r := Rules{Props: DefaultProps()}
	for _, f := range []experiment.FaultKind{experiment.QuorumLoss, experiment.CutOffMember} {
		reads, why := r.MemberReads(f)
		if reads != experiment.ReadsAnswer || !strings.Contains(why, "own registry") {
			t.Errorf("MemberReads(%s) = %s (%q), want answer", f, reads, why)
		}
	}
	if _, why := r.MemberReads(experiment.QuorumLoss); !strings.Contains(why, "RetryableEurekaHttpClient") {
		t.Errorf("MemberReads(quorum-loss) does not say the reader fails over: %q", why)
	}
}
