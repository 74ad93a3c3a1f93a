package eurekaarticle

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/worlds/eureka/eurekareal"
)

// TestRealBandsFollowTheHardCodedConstants: on real Eureka the bands use
// what the real server fixes in code (eurekareal.HardCoded, which a real
// run's meta records), converted to model time at every scale a real run
// can take: the two lists cannot drift apart.
func TestRealBandsFollowTheHardCodedConstants(t *testing.T) {
	for _, k := range realScales {
		p := defaultEurekaParams(k)
		p.Backend = backendReal
		cfg := p.config()
		real := func(d time.Duration) time.Duration { return time.Duration(float64(d) / k) }
		durations := map[string]time.Duration{"RenewsBucket": real(cfg.RenewsBucket), "BatchDelay": real(cfg.BatchDelay),
			"NetworkRetry": real(cfg.NetworkRetry), "CongestionRetry": real(cfg.CongestionRetry)}
		others := map[string]string{"LeaseBug": fmt.Sprint(cfg.LeaseBug), "BatchSize": fmt.Sprint(cfg.BatchSize), "Retries": fmt.Sprint(cfg.Retries)}
		for _, h := range eurekareal.HardCoded {
			if d, ok := durations[h.Field]; ok {
				if want := constDuration(t, h.Value); d != want {
					t.Errorf("scale %g: %s is %s of real time in the bands, the server fixes %s (%s)", k, h.Field, d, h.Value, h.Where)
				}
			} else if v, ok := others[h.Field]; !ok || v != h.Value {
				t.Errorf("scale %g: %s is %q in the bands, the server fixes %s (%s)", k, h.Field, v, h.Value, h.Where)
			}
		}
	}
}

// constDuration parses a HardCoded duration ("60 s", "500 ms").
func constDuration(t *testing.T, v string) time.Duration {
	t.Helper()
	n, unit, _ := strings.Cut(v, " ")
	x, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("constant %q: %v", v, err)
	}
	switch unit {
	case "s":
		return time.Duration(x) * time.Second
	case "ms":
		return time.Duration(x) * time.Millisecond
	}
	t.Fatalf("constant %q: unit %q", v, unit)
	return 0
}
