package nacosarticle

import (
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// testPortBase keeps this package's runs apart from other packages' tests.
const testPortBase = 9600

func TestNacosFlagValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "registry-jitter"},
		{Scenario: "registry-jitter", Args: []string{"--jitter", "0s"}, WantErr: "--jitter (0s)"},
		{Scenario: "registry-jitter", Args: []string{"--duration", "5s"}, WantErr: "--duration (5s) must be at least"},
		{Scenario: "registry-jitter", Args: []string{"--after", "0s"}, WantErr: "raise --after"},
		{Scenario: "registry-jitter", Args: []string{"--rate", "0"}, WantErr: "--rate (0)"},
		{Scenario: "registry-jitter", Args: []string{"--ttl", "10s"}},
		{Scenario: "minority-partition"},
		{Scenario: "minority-partition", Args: []string{"--isolate", "candidate"}, WantErr: `--isolate "candidate"`},
		{Scenario: "minority-partition", Args: []string{"--partition", "3s"}, WantErr: "--partition (3s)"},
		{Scenario: "minority-partition", Args: []string{"--isolate", "follower", "--one-way"}},
		{Scenario: "snapshot-at-start"},
		{Scenario: "snapshot-at-start", Args: []string{"--restart-at", "1s"}, WantErr: "--restart-at (1s) must fall inside the outage"},
		{Scenario: "snapshot-at-start", Args: []string{"--duration", "9s"}, WantErr: "--duration (9s)"},
		{Scenario: "reregistration-storm"},
		{Scenario: "reregistration-storm", Args: []string{"--instances", "1000,5000,20000"}},
		{Scenario: "reregistration-storm", Args: []string{"--instances", ""}, WantErr: "at least one size"},
		{Scenario: "reregistration-storm", Args: []string{"--instances", "0"}, WantErr: "size 0"},
		{Scenario: "reregistration-storm", Args: []string{"--backoff-base", "2s", "--backoff-cap", "1s"}, WantErr: "--backoff-base (2s)"},
		{Scenario: "reregistration-storm", Args: []string{"--backoff-base", "150ms"}, WantErr: "--backoff-base (150ms) must be at least 200ms"},
		{Scenario: "reregistration-storm", Args: []string{"--backoff-base", "200ms"}},
		{Scenario: "reregistration-storm", Args: []string{"--ttl", "1s"}, WantErr: "--ttl (1s)"},
		{Scenario: "reregistration-storm", Args: []string{"--revoke-rate", "2000"}, WantErr: "--revoke-rate (2000)"},
	})
}

func run(t *testing.T, name string, args ...string) *report.Result {
	t.Helper()
	return scentest.RunReproduced(t, testPortBase, "runs real etcd processes", name, args...)
}

// TestRegistryJitterShort: a 6 s jitter with the default 20 s ttl, no
// lease expires. naive fails every send from its first failure (within the
// judge's naiveFirstBand after the jitter starts) until the heal, so its
// failures during the jitter are the sends in what is left of it: rate ×
// (recorded jitter length − the band's end … − its start), ± 1 send.
func TestRegistryJitterShort(t *testing.T) {
	args := []string{"--jitter", "6s", "--after", "3s"}
	res := run(t, "registry-jitter", args...)
	s := scentest.MustConfigure(t, "registry-jitter", args...).(*registryJitter)
	lo, hi := s.naiveFirstBand()
	jitter := res.Metrics["jitter_end_s"] - res.Metrics["jitter_start_s"]
	scentest.Between(t, res, "naive.fail_during", s.Call.Rate*(jitter-hi.Seconds())-1, s.Call.Rate*(jitter-lo.Seconds())+1)
	scentest.Between(t, res, "keep.fail", 0, 0)
	scentest.Between(t, res, "instances_reregistered", 0, 0)
	scentest.WantVerdicts(t, res, map[string]report.Verdict{"instances that registered again": report.Reproduced})
	// Linearizability of the key-value traffic (issue 12); ops during the jitter time out.
	scentest.Between(t, res, "kv.lin.linearizable", 1, 1)
	scentest.Between(t, res, "kv.lost_puts", 0, 0)
}

func TestRegistryJitterLeasesExpire(t *testing.T) {
	// ttl 4 s < jitter 7 s: the leases expire inside etcd; keep then sees an
	// empty registry, the two remedies do not fail.
	res := run(t, "registry-jitter", "--jitter", "7s", "--after", "4s", "--ttl", "4s", "--renew", "1s")
	scentest.Between(t, res, "instances_reregistered", 3, 3)
	scentest.Between(t, res, "stale_fallback.fail", 0, 0)
	scentest.Between(t, res, "empty_protect.fail", 0, 0)
}

// TestMinorityPartitionReproducesWithTheLeaderCutOff: the isolated
// member's linearizable read and put fail at their deadline (the judge's
// deadlineBand around --op-timeout).
func TestMinorityPartitionReproducesWithTheLeaderCutOff(t *testing.T) {
	args := []string{"--partition", "6s"}
	res := run(t, "minority-partition", args...)
	lo, hi := scentest.MustConfigure(t, "minority-partition", args...).(*minorityPartition).deadlineBand()
	scentest.Between(t, res, "iso.ser_read.stale", 1, 1)
	scentest.Between(t, res, "iso.lin_read.ms", lo, hi)
	scentest.Between(t, res, "iso.put.ms", lo, hi)
	scentest.Between(t, res, "healed.caught_up", 1, 1)
	// Linearizability (issue 12): the strict subset is, the cut-off member's serializable gets are not.
	scentest.Between(t, res, "kv.lin.linearizable", 1, 1)
	scentest.Between(t, res, "kv.with_ser.linearizable", 0, 0)
	scentest.Between(t, res, "kv.lost_puts", 0, 0)
	if len(res.Files["history.html"]) == 0 {
		t.Error("no visualisation attached")
	}
}

// keptLeaderMax bounds the majority's leader probe when no election
// happens (a follower cut off: PreVote and CheckQuorum keep the leader):
// the probe waits for the cut's event (the Inject, one late wake-up; its
// 5 ms poll), then asks each majority member for its status in turn
// (cluster's waitFor, 300 ms timeout each) and once more at once to name
// the leader (leaderOf, 500 ms), each round at most its timeouts, plus one
// late wake-up. An election would take at least one election timeout.
const keptLeaderMax = clock.SchedSlack + 5*time.Millisecond + 2*300*time.Millisecond + 500*time.Millisecond + clock.SchedSlack

// TestMinorityPartitionReproducesWithAFollowerCutOff: as with the leader
// cut off, and the majority names its leader within keptLeaderMax.
func TestMinorityPartitionReproducesWithAFollowerCutOff(t *testing.T) {
	args := []string{"--partition", "6s", "--isolate", "follower"}
	res := run(t, "minority-partition", args...)
	lo, hi := scentest.MustConfigure(t, "minority-partition", args...).(*minorityPartition).deadlineBand()
	scentest.Between(t, res, "iso.lin_read.ms", lo, hi)
	scentest.Between(t, res, "iso.put.ms", lo, hi)
	scentest.Between(t, res, "maj.leader_ms", 0, report.Ms(keptLeaderMax))
	scentest.Between(t, res, "kv.with_ser.linearizable", 0, 0)
}

// TestSnapshotAtStartReproduces: the outage from 2 s to 6 s, the restart at
// 3 s. nosnap fails every send from its start until the registry is back,
// and until its first success after that (within the judge's firstOKBand),
// then none: rate × (back − restart) ± 1 sends, plus up to rate × the
// band's end, from the recorded restart and heal.
func TestSnapshotAtStartReproduces(t *testing.T) {
	args := []string{"--outage", "4s", "--restart-at", "3s", "--duration", "9s"}
	res := run(t, "snapshot-at-start", args...)
	s := scentest.MustConfigure(t, "snapshot-at-start", args...).(*snapshotAtStart)
	_, hi := s.firstOKBand()
	down := res.Metrics["registry_back_s"] - res.Metrics["restart_s"]
	scentest.Between(t, res, "snap.fail", 0, 0)
	scentest.Between(t, res, "nosnap.fail", s.Call.Rate*down-1, s.Call.Rate*(down+hi.Seconds())+1)
}

func TestReregistrationStormSmall(t *testing.T) {
	res := run(t, "reregistration-storm", "--instances", "200", "--ttl", "3s", "--renew", "1s", "--backoff-base", "2s")
	scentest.Between(t, res, "immediate.registered", 200, 200)
	scentest.Between(t, res, "jitter.registered", 200, 200)
	scentest.Between(t, res, "immediate.registry.fell_over", 0, 0)
	if j, i := res.Metrics["jitter.registry.peak_per_100ms"], res.Metrics["immediate.registry.peak_per_100ms"]; !(j < i) {
		t.Errorf("registry-side peak: jitter %g not below immediate %g", j, i)
	}
}
