package etcd

import (
	"strings"
	"testing"
	"time"

	"sdchaos/cluster"
	"sdchaos/experiment"
)

// TestRulesMemberReads: a linearizable read needs a quorum, so every read
// fails under a quorum loss and only those sent to the cut-off member fail
// when one is cut off.
func TestRulesMemberReads(t *testing.T) {
	tests := []struct {
		f    experiment.FaultKind
		want experiment.Reads
	}{
		{experiment.QuorumLoss, experiment.ReadsFail},
		{experiment.CutOffMember, experiment.ReadsSome},
	}
	for _, tc := range tests {
		reads, why := Rules{}.MemberReads(tc.f)
		if reads != tc.want || !strings.Contains(why, "ReadIndex") {
			t.Errorf("MemberReads(%s) = %s (%q), want %s", tc.f, reads, why, tc.want)
		}
	}
}

// TestRulesRecovery: with 20 s leases renewed every 2 s a 12 s cut
// leaves every lease (the resolver kept its addresses, 0); an 18 s cut
// may outlast them, so the bound covers the re-registration at the next
// renewal (Relisted: renew + 2 s, + spread) and the reader's lag; killed
// members expire nothing.
func TestRulesRecovery(t *testing.T) {
	r := Rules{Config: cluster.DefaultConfig(), TTL: 20 * time.Second, Renew: 2 * time.Second}
	policy := experiment.Caller{Kind: experiment.PolicyCaller, Policy: experiment.Keep}
	resolver := experiment.Caller{Kind: experiment.RealClient, Client: "grpc-round-robin"}
	tests := []struct {
		name string
		c    experiment.Caller
		o    experiment.Outage
		want time.Duration
	}{
		{"resolver, leases outlive a 12 s cut", resolver, experiment.Outage{How: experiment.Blackhole, Cut: 12 * time.Second}, 0},
		{"policy, leases outlive a 12 s cut", policy, experiment.Outage{How: experiment.Blackhole, Cut: 12 * time.Second}, 2 * time.Second},
		{"resolver, an 18 s cut may expire them", resolver, experiment.Outage{How: experiment.Blackhole, Cut: 18 * time.Second}, 5 * time.Second},
		{"policy, an 18 s cut may expire them", policy, experiment.Outage{How: experiment.Blackhole, Cut: 18 * time.Second}, 6 * time.Second},
		{"resolver, spread 10 s", resolver, experiment.Outage{How: experiment.Blackhole, Cut: 40 * time.Second, Spread: 10 * time.Second}, 15 * time.Second},
		{"resolver, members killed", resolver, experiment.Outage{How: experiment.Kill, Cut: 40 * time.Second}, 0},
	}
	for _, tc := range tests {
		if got, why := r.Recovery(tc.c, tc.o, time.Second); got != tc.want || why == "" {
			t.Errorf("%s: %s (%q), want %s", tc.name, got, why, tc.want)
		}
	}
}
