package eurekareal

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"sdchaos/clock"
)

// sample is one reading of a server's state during the timeline.
type sample struct {
	at time.Duration
	st State
}

// selfPreservation registers 9 more workers (10 with w00, each on its own
// server order), waits on s2 for the first renewsLastMin roll after which
// lease expiration is enabled, crashes 6 workers at once and follows s2
// until the next roll (+8 s). It checks the source's rules on every reading and every eviction
// run, and logs the timeline (what the real server did).
func (w *world) selfPreservation(t *testing.T) {
	urls := serviceURLs(w.servers)
	for i := 1; i < 10; i++ {
		order := append(slices.Clone(urls[i%3:]), urls[:i%3]...)
		w.startWorker(t, fmt.Sprintf("w%02d", i), order)
	}
	s := w.servers[1]
	t0 := time.Now()
	var samples []sample
	read := func() State {
		st, err := s.State(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, sample{time.Since(t0), st})
		return st
	}
	crashed := w.followUntilDrop(t, t0, read)
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); {
		_ = clock.SleepFor(w.ctx, 500*time.Millisecond)
		read()
	}
	logTimeline(t, samples, crashed)
	checkReadings(t, samples)
	w.checkEvictionRuns(t, s, t0)
}

// logTimeline logs every change of the readings.
func logTimeline(t *testing.T, samples []sample, crashed time.Duration) {
	t.Logf("s2 timeline from the 10th registration (6 workers crashed at %.1f s):", crashed.Seconds())
	var prev State
	for i, x := range samples {
		st := x.st
		if i > 0 && st.RenewsLastMin == prev.RenewsLastMin && st.Threshold == prev.Threshold &&
			st.ExpirationEnabled == prev.ExpirationEnabled && st.Size == prev.Size {
			continue
		}
		t.Logf("  %6.1f s: renewsLastMin %d, threshold %d, expected %d, expiration enabled %v, size %d, below threshold %v",
			x.at.Seconds(), st.RenewsLastMin, st.Threshold, st.Expected, st.ExpirationEnabled, st.Size, st.BelowThreshold)
		prev = st
	}
}

// jvmWake is the allowance for one late wake-up of a JVM thread on a
// shared host (GC pauses, a starved CPU): the real-Eureka judges allow as
// much for a request between JVMs.
const jvmWake = 250 * time.Millisecond

// checkReadings checks isLeaseExpirationEnabled against the source's rule
// and that renewsLastMin changes at one-minute steps: MeasuredRate rolls
// its bucket from a java.util.Timer scheduled with fixed delay (60 s after
// the previous run started, plus that run's lateness, up to jvmWake), and
// a roll is seen at the first reading after it, the readings being at most
// the longest measured gap between two of them apart; so two changes seen
// are 60 s − that gap to 60 s + that gap + jvmWake apart.
func checkReadings(t *testing.T, samples []sample) {
	var changes []time.Duration
	var gap time.Duration // the longest time between two readings
	for i, x := range samples {
		if i > 0 {
			gap = max(gap, x.at-samples[i-1].at)
		}
		st := x.st
		want := !st.SelfPreservation || (st.Threshold > 0 && st.RenewsLastMin > int64(st.Threshold))
		if st.ExpirationEnabled != want {
			t.Errorf("at %.1f s: lease expiration enabled %v with renews %d, threshold %d: the rule says %v",
				x.at.Seconds(), st.ExpirationEnabled, st.RenewsLastMin, st.Threshold, want)
		}
		if i > 0 && st.RenewsLastMin != samples[i-1].st.RenewsLastMin {
			changes = append(changes, x.at)
		}
	}
	lo, hi := time.Minute-gap, time.Minute+gap+jvmWake
	for i := 1; i < len(changes); i++ {
		if d := changes[i] - changes[i-1]; d < lo || d > hi {
			t.Errorf("renewsLastMin changed %.1f s after its previous change, want %.1f–%.1f s (60 s, readings up to %s apart)",
				d.Seconds(), lo.Seconds(), hi.Seconds(), gap.Round(time.Millisecond))
		}
	}
}

// checkEvictionRuns logs s's eviction runs since t0 that evicted or changed
// (enabled, would expire), and checks that a run evicted only when enabled and at most its limit.
func (w *world) checkEvictionRuns(t *testing.T, s *Server, t0 time.Time) {
	ev, err := s.Events(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	evicted, prevEnabled, prevWould := 0, false, -1
	for _, r := range ev.Evictions {
		at := s.HostTime(r.MonoMS).Sub(t0)
		if at < 0 {
			continue
		}
		if len(r.Evicted) > 0 && (!r.Enabled || len(r.Evicted) > r.Limit) {
			t.Errorf("run at %.1f s evicted %v (enabled %v, limit %d)", at.Seconds(), r.Evicted, r.Enabled, r.Limit)
		}
		evicted += len(r.Evicted)
		if len(r.Evicted) > 0 || r.Enabled != prevEnabled || r.WouldExpire != prevWould {
			t.Logf("  run at %6.1f s: enabled %v, renews %d/%d, expected %d, size %d, expired %d, would expire %d, limit %d, evicted %v, compensation %d ms",
				at.Seconds(), r.Enabled, r.RenewsLastMin, r.Threshold, r.Expected, r.Size, r.Expired, r.WouldExpire,
				r.Limit, r.Evicted, r.CompensationMS)
		}
		prevEnabled, prevWould = r.Enabled, r.WouldExpire
	}
	t.Logf("s2 evicted %d leases in the timeline", evicted)
}

// followUntilDrop reads s2 every 500 ms; at the first roll of renewsLastMin
// that enables lease expiration it crashes w04…w09, and it returns (with the
// crash time) once renewsLastMin has rolled again after the crash.
func (w *world) followUntilDrop(t *testing.T, t0 time.Time, read func() State) time.Duration {
	last := read().RenewsLastMin
	var crashed time.Duration
	for {
		if err := clock.SleepFor(w.ctx, 500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		st := read()
		rolled := st.RenewsLastMin != last
		last = st.RenewsLastMin
		switch {
		case rolled && crashed > 0:
			return crashed
		case rolled && st.ExpirationEnabled:
			crashed = time.Since(t0)
			for _, wk := range w.workers[4:] { // w04…w09
				wk.Crash()
			}
		case time.Since(t0) > 200*time.Second:
			t.Fatalf("no roll enabling lease expiration and a roll after it within 200 s (renews %d, threshold %d)",
				st.RenewsLastMin, st.Threshold)
		}
	}
}
