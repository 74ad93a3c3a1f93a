package eurekareal

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"sdchaos/clock"
	"sdchaos/ports"
)

// probeApp is the app of the start-up probes (cancelled before StartCluster
// returns: each raises and lowers the expected-client count by one).
const probeApp = "SDCHAOS-PROBE"

// probeReplication registers one probe instance on every server, waits until
// every server holds all of them (each server's Replication is the longest
// wait for a probe from a peer), then cancels them and waits until they are
// gone everywhere.
func probeReplication(ctx context.Context, servers []*Server, deadline time.Time) error {
	r := rest{&http.Client{Timeout: 5 * time.Second}}
	start := time.Now()
	keys := make([]string, len(servers))
	for i, s := range servers {
		in := Instance{App: probeApp, ID: "probe-" + s.Name, Host: ports.Host, Port: 1, RenewSecs: 30, DurationSecs: 90,
			DirtyMS: time.Now().UnixMilli()}
		keys[i] = probeApp + "/" + in.ID
		if err := retryUntil(ctx, deadline, func() error {
			st, err := r.register(ctx, s.ServiceURL, in)
			return expect("registering the replication probe on eureka "+s.Name, st, err, http.StatusNoContent)
		}); err != nil {
			return err
		}
	}
	if err := waitHolding(ctx, servers, keys, true, start, deadline); err != nil {
		return err
	}
	for i, s := range servers {
		if err := retryUntil(ctx, deadline, func() error {
			st, err := r.cancel(ctx, s.ServiceURL, probeApp, "probe-"+s.Name)
			return expect("cancelling the replication probe on eureka "+servers[i].Name, st, err, http.StatusOK, http.StatusNotFound)
		}); err != nil {
			return err
		}
	}
	return waitHolding(ctx, servers, keys, false, time.Now(), deadline)
}

// waitHolding polls every server until it holds all keys (want) or none
// (!want). With want, each server's Replication is set to when it did.
func waitHolding(ctx context.Context, servers []*Server, keys []string, want bool, start, deadline time.Time) error {
	pending := slices.Clone(servers)
	for len(pending) > 0 {
		var next []*Server
		for _, s := range pending {
			st, err := s.State(ctx)
			if err == nil && holdsAll(st.IDs, keys, want) {
				if want {
					s.Replication = time.Since(start)
				}
				continue
			}
			next = append(next, s)
		}
		pending = next
		if len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("eureka %s: replication probes (%v, present=%v) not seen by %s: peers do not replicate",
				pending[0].Name, keys, want, deadline.Format(time.TimeOnly))
		}
		if err := clock.SleepFor(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func holdsAll(ids, keys []string, want bool) bool {
	for _, k := range keys {
		if slices.Contains(ids, k) != want {
			return false
		}
	}
	return true
}

// retryUntil calls f until it succeeds or the deadline passes (a JVM on a
// loaded host may not answer a start-up probe within one request's
// timeout); it returns f's last error.
func retryUntil(ctx context.Context, deadline time.Time, f func() error) error {
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		if serr := clock.SleepFor(ctx, 200*time.Millisecond); serr != nil {
			return err
		}
	}
}
