package nacosarticle

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"sdchaos/internal/machinelock"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
	"sdchaos/storm"
)

// TestStormSamplingAgreesOverHTTP runs one storm whose members are read
// both ways at once — each sampling its own registry inside its process,
// and over its /metrics from the harness, as a cluster the harness did not
// start is read — and requires the two to agree on what the judge uses, as
// far as reading the same counters at other instants allows (samplingEdge):
// the calls received and answered after the heal within the calls either
// reading puts near the window's two ends, each reading's peak per 100 ms
// no higher than the other puts within the edge around any bucket, and the
// side of the peak check's limit the jitter ÷ immediate ratio falls on.
func TestStormSamplingAgreesOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real etcd processes")
	}
	cfg, c, err := scentest.Configure(t, "reregistration-storm", "--instances", "1000", "--ttl", "3s", "--renew", "1s",
		"--revoke-rate", "1000", "--duration", "20s")
	if err != nil {
		t.Fatal(err)
	}
	cfg.(*reregistrationStorm).alsoHTTP = true
	defer machinelock.Take(t)()
	c.PortBase = testPortBase
	env := scenarios.NewEnv(c, nil, nil)
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := cfg.Run(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	var rec stormRecord
	if err := json.Unmarshal(h.Data, &rec); err != nil {
		t.Fatal(err)
	}
	peaks := map[string][2]float64{} // strategy → in-process, over HTTP
	for _, p := range rec.Phases {
		sd, why := side(h, rec, p.N, p.Strategy)
		if why != "" {
			t.Skipf("the run cannot be judged, so neither can its samplings: %s", why)
		}
		// Compare over the time both cover: the samplers stop one after the
		// other, and the registrants renew in between.
		from := rec.T0 + int64(sd.heal.At)
		over := storm.MeasureRegistry(p.MembersHTTP, from, bucketWidth, len(sd.load.Received))
		n := int(min(sd.load.Covered, over.Covered) / bucketWidth)
		own := storm.MeasureRegistry(p.Members, from, bucketWidth, n)
		over = storm.MeasureRegistry(p.MembersHTTP, from, bucketWidth, n)
		t.Logf("%s: received %.0f / %.0f, ok %.0f / %.0f, errors %.0f / %.0f, peak per 100 ms %.0f / %.0f, longest gap %s / %s (in-process / over HTTP)",
			p.Strategy, own.TotalReceived, over.TotalReceived, own.TotalOK, over.TotalOK, own.TotalErrors, over.TotalErrors,
			own.Peak(), over.Peak(), own.MaxGap, over.MaxGap)
		k := samplingEdge(own, over)
		for _, f := range []struct {
			name   string
			a, b   []float64
			ta, tb float64
		}{
			{"calls received", own.Received, over.Received, own.TotalReceived, over.TotalReceived},
			{"calls answered ok", own.OK, over.OK, own.TotalOK, over.TotalOK},
		} {
			if tol := edgeCalls(f.a, f.b, k); math.Abs(f.ta-f.tb) > tol {
				t.Errorf("%s, %s: %.0f in-process, %.0f over HTTP (more apart than the %.0f in the %d buckets at each end)", p.Strategy, f.name, f.ta, f.tb, tol, k)
			}
		}
		if pa, pb := own.Peak(), over.Peak(); pa > report.WindowMax(over.Received, k) || pb > report.WindowMax(own.Received, k) {
			t.Errorf("%s, peak per 100 ms: %.0f in-process, %.0f over HTTP: more than the other reading has within %d buckets of any bucket", p.Strategy, pa, pb, k)
		}
		peaks[p.Strategy] = [2]float64{own.Peak(), over.Peak()}
	}
	// What the judge makes of the peaks must not depend on the reading: the
	// jitter ÷ immediate ratio on the same side of the check's 0.9.
	imm, jit := peaks["immediate"], peaks["jitter"]
	a, b := jit[0]/imm[0], jit[1]/imm[1]
	t.Logf("jitter ÷ immediate peak: %.2f in-process, %.2f over HTTP", a, b)
	if (a <= peakRatioMax) != (b <= peakRatioMax) {
		t.Errorf("the peak check would differ: jitter ÷ immediate %.2f in-process, %.2f over HTTP (limit %.1f)", a, b, peakRatioMax)
	}
}

// samplingEdge is how many buckets the in-process reading own and the HTTP
// reading http of the same counters can disagree over at each end of a
// window: each reads every member's counters at its own instants, at most
// its MaxGap apart, and interpolates between its samples; over HTTP a
// sample is dated when its answer arrives, up to one more gap late (the
// sampler waits for one answer before it reads again). So the calls within
// own's gap + twice http's of an instant can fall on either side of it,
// plus one bucket for the grid.
func samplingEdge(own, http storm.RegistryLoad) int {
	return int(math.Ceil(float64(own.MaxGap+2*http.MaxGap)/float64(bucketWidth))) + 1
}

// edgeCalls sums, over the k buckets at each end, the larger of the two
// readings' counts.
func edgeCalls(a, b []float64, k int) float64 {
	n := min(len(a), len(b))
	sum := 0.0
	for i := range n {
		if i < k || i >= n-k {
			sum += max(a[i], b[i])
		}
	}
	return sum
}
