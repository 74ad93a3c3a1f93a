package cluster

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
)

// WaitKeyCount polls until exactly want keys are under prefix or limit
// passes, and returns the last count (−1 when the last count failed).
func WaitKeyCount(ctx context.Context, cli *clientv3.Client, prefix string, want int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n, err := CountPrefix(ctx, cli, prefix, 5*time.Second, false)
		if err != nil {
			n = -1
		}
		if n == want || time.Now().After(deadline) || clock.SleepUntil(ctx, time.Now().Add(250*time.Millisecond)) != nil {
			return n
		}
	}
}
