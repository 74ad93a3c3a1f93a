package cluster

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
)

// The probes below read what etcd holds, each with its own deadline; the
// scenarios use them to observe the registry around faults.

// CountPrefix returns how many keys are under prefix (a linearizable count,
// unless serializable), bounded by timeout.
func CountPrefix(ctx context.Context, cli *clientv3.Client, prefix string, timeout time.Duration, serializable bool) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCountOnly()}
	if serializable {
		opts = append(opts, clientv3.WithSerializable())
	}
	resp, err := cli.Get(ctx, prefix, opts...)
	if err != nil {
		return 0, fmt.Errorf("counting keys under %s: %w", prefix, err)
	}
	return int(resp.Count), nil
}

// WaitNoKeys polls until no key is left under prefix or limit passes, and
// returns how many are left (0 on success, −1 when the last count failed).
func WaitNoKeys(ctx context.Context, cli *clientv3.Client, prefix string, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n, err := CountPrefix(ctx, cli, prefix, 5*time.Second, false)
		if err != nil {
			n = -1
		}
		if n == 0 || time.Now().After(deadline) || clock.SleepUntil(ctx, time.Now().Add(250*time.Millisecond)) != nil {
			return n
		}
	}
}

// WaitLeaderless waits until member n reports no leader (a member that lost
// its quorum still has a leader until CheckQuorum steps it down).
func WaitLeaderless(ctx context.Context, n *Node, cli *clientv3.Client, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		st := n.Status(ctx, cli, 300*time.Millisecond)
		if st.Err == nil && st.Leader == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd %s still reports a leader %s after losing its peers", n.Name, limit)
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(20*time.Millisecond)); err != nil {
			return err
		}
	}
}

// WaitForKey polls a serializable read of key until it is present or the
// deadline passes; it returns whether it appeared and when it was first seen.
func WaitForKey(ctx context.Context, cli *clientv3.Client, key string, deadline time.Time) (bool, time.Time) {
	for time.Now().Before(deadline) {
		c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		resp, err := cli.Get(c, key, clientv3.WithSerializable())
		cancel()
		if err == nil && len(resp.Kvs) > 0 {
			return true, time.Now()
		}
		if clock.SleepUntil(ctx, time.Now().Add(50*time.Millisecond)) != nil {
			break
		}
	}
	return false, time.Now()
}

// NodeNames returns the members' names.
func NodeNames(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

// ClientURLs returns the members' client URLs.
func ClientURLs(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ClientURL()
	}
	return out
}
