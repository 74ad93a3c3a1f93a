//go:build sdchaos_unconverted

package scenarios

import (
	"testing"
	"time"

	"sdchaos/report"
)

func TestNacosFlagValidation(t *testing.T) {
	checkValidation(t, []validationCase{
		{"registry-jitter", nil, ""},
		{"registry-jitter", []string{"--jitter", "0s"}, "--jitter (0s)"},
		{"registry-jitter", []string{"--duration", "5s"}, "--duration (5s) must be at least"},
		{"registry-jitter", []string{"--rate", "0"}, "--rate (0)"},
		{"minority-partition", nil, ""},
		{"minority-partition", []string{"--isolate", "candidate"}, `--isolate "candidate"`},
		{"minority-partition", []string{"--partition", "3s"}, "--partition (3s)"},
		{"snapshot-at-start", nil, ""},
		{"snapshot-at-start", []string{"--restart-at", "1s"}, "--restart-at (1s) must fall inside the outage"},
		{"snapshot-at-start", []string{"--duration", "9s"}, "--duration (9s)"},
		{"reregistration-storm", nil, ""},
		{"reregistration-storm", []string{"--instances", ""}, "at least one size"},
		{"reregistration-storm", []string{"--instances", "0"}, "size 0"},
		{"reregistration-storm", []string{"--backoff-base", "2s", "--backoff-cap", "1s"}, "--backoff-base (2s)"},
		{"reregistration-storm", []string{"--ttl", "1s"}, "--ttl (1s)"},
	})
}

func TestRegistryJitterShort(t *testing.T) {
	// A 6 s jitter with the default 20 s ttl: no lease expires.
	res := runScenario(t, "registry-jitter", "--jitter", "6s", "--after", "3s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "naive.fail_during", 120, 240)
	between(t, res, "keep.fail", 0, 0)
	between(t, res, "instances_reregistered", 0, 0)
}

func TestRegistryJitterLeasesExpire(t *testing.T) {
	// ttl 4 s < jitter 7 s: the leases expire inside etcd; keep then sees an
	// empty registry, the two remedies do not fail.
	res := runScenario(t, "registry-jitter", "--jitter", "7s", "--after", "4s", "--ttl", "4s", "--renew", "1s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "instances_reregistered", 3, 3)
	between(t, res, "stale_fallback.fail", 0, 0)
	between(t, res, "empty_protect.fail", 0, 0)
}

func TestMinorityPartitionReproduces(t *testing.T) {
	res := runScenario(t, "minority-partition", "--partition", "6s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "iso.ser_read.stale", 1, 1)
	between(t, res, "maj.leader_ms", 0, 5000)
	between(t, res, "healed.caught_up", 1, 1)
}

func TestSnapshotAtStartReproduces(t *testing.T) {
	res := runScenario(t, "snapshot-at-start", "--outage", "4s", "--restart-at", "3s", "--duration", "9s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "snap.fail", 0, 0)
	between(t, res, "nosnap.fail", 60, 130) // 3 s of failures (+ the refresh after the return) at 40/s
}

func TestReregistrationStormSmall(t *testing.T) {
	res := runScenario(t, "reregistration-storm", "--instances", "200", "--ttl", "3s", "--renew", "1s", "--backoff-base", "2s")
	if !res.Reproduced {
		t.Errorf("not reproduced: %+v", res.Failed())
	}
	between(t, res, "immediate.registered", 200, 200)
	between(t, res, "jitter.registered", 200, 200)
	if res.Metrics["jitter.peak_per_100ms"] >= res.Metrics["immediate.peak_per_100ms"] {
		t.Errorf("jitter peak %g not below immediate %g", res.Metrics["jitter.peak_per_100ms"], res.Metrics["immediate.peak_per_100ms"])
	}
}

// TestRegistryJitterJudgeEmptyWindow: keep's failures after the jitter are
// judged against the time its own refreshes saw the registry empty.
func TestRegistryJitterJudgeEmptyWindow(t *testing.T) {
	s := &registryJitter{trafficParams: defaultTrafficParams(), JitterAt: 2 * time.Second, Jitter: 4 * time.Second, After: 4 * time.Second}
	marks := []report.Mark{{At: 2 * time.Second, Label: "blackhole client links"}, {At: 6 * time.Second, Label: "healed: blackhole client links"}}
	refresh := func(at time.Duration, listed string) report.Op {
		return report.Op{Caller: "keep/refresh", Scheduled: at, End: at + 10*time.Millisecond, Target: listed}
	}
	for _, tc := range []struct {
		name       string
		keepFail   func(at time.Duration) bool
		reproduced bool
	}{
		{"fails exactly while empty", func(at time.Duration) bool { return at >= 6010*time.Millisecond && at < 7010*time.Millisecond }, true},
		{"fails far longer than empty", func(at time.Duration) bool { return at >= 6010*time.Millisecond && at < 9*time.Second }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := synth([]string{"naive", "keep", "stale_fallback", "empty_protect"}, 40, 10*time.Second, func(c string, at time.Duration) bool {
				switch c {
				case "naive":
					return at >= 3*time.Second && at < 6*time.Second
				case "keep":
					return tc.keepFail(at)
				}
				return false
			})
			ops = append(ops, refresh(6*time.Second, "0 listed"), refresh(7*time.Second, "3 listed"))
			res := s.judge(ops, marks, 10*time.Second, 3)
			res.Finish()
			if res.Reproduced != tc.reproduced {
				t.Errorf("reproduced = %v, want %v; failed %+v", res.Reproduced, tc.reproduced, res.Failed())
			}
		})
	}
}
