package storm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
)

// Shard is --shard k/n: this process drives registrants i with i mod n ==
// k, one slice of a fleet that n processes (hosts, pods) drive together.
// The zero value (0/0) means the whole fleet (0/1).
type Shard struct{ K, N int }

// String formats the shard ("0/1" for the whole fleet).
func (f *Shard) String() string { return fmt.Sprintf("%d/%d", f.K, max(f.N, 1)) }

// Set parses "k/n".
func (f *Shard) Set(s string) error {
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return fmt.Errorf("want k/n with 0 ≤ k < n (e.g. 1/2), got %q", s)
	}
	f.K, f.N = k, n
	return nil
}

// Sharded reports whether the process drives only a slice of the fleet.
func (f Shard) Sharded() bool { return f.N > 1 }

// Owns reports whether registrant i is this shard's.
func (f Shard) Owns(i int) bool { return !f.Sharded() || i%f.N == f.K }

// Mine counts this shard's registrants among n.
func (f Shard) Mine(n int) int {
	m := 0
	for i := range n {
		if f.Owns(i) {
			m++
		}
	}
	return m
}

// Name labels this shard's harness process in cost tables.
func (f Shard) Name() string {
	if !f.Sharded() {
		return "harness"
	}
	return "harness shard " + f.String()
}

// SharedZero waits until startAt and returns a recorder whose time zero it
// is: every shard's history then shares one timeline. logf may be nil.
func SharedZero(ctx context.Context, f Shard, startAt time.Time, logf func(string, ...any)) (*history.Recorder, error) {
	if logf != nil {
		logf("shard %s: waiting for --start-at %s (in %.1f s)", f.String(), startAt.Format(time.RFC3339Nano), time.Until(startAt).Seconds())
	}
	if err := clock.SleepUntil(ctx, startAt); err != nil {
		return nil, err
	}
	return history.NewRecorder(startAt), nil
}
