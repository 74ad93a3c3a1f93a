package nacosarticle

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/scenarios"
)

// shardFlag is --shard k/n: this process drives registrants i with
// i mod n == k. The zero value (0/0) means the whole fleet (0/1).
type shardFlag struct{ K, N int }

// String formats the flag ("0/1" for the whole fleet).
func (f *shardFlag) String() string { return fmt.Sprintf("%d/%d", f.K, max(f.N, 1)) }

// Set parses "k/n".
func (f *shardFlag) Set(s string) error {
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return fmt.Errorf("want k/n with 0 ≤ k < n (e.g. 1/2), got %q", s)
	}
	f.K, f.N = k, n
	return nil
}

// sharded reports whether the run drives only a slice of the fleet.
func (f shardFlag) sharded() bool { return f.N > 1 }

// owns reports whether registrant i is this shard's.
func (f shardFlag) owns(i int) bool { return !f.sharded() || i%f.N == f.K }

// name labels this shard's harness in the cost table.
func (f shardFlag) name() string {
	if !f.sharded() {
		return "harness"
	}
	return "harness shard " + f.String()
}

// timeFlag is an RFC 3339 time flag (zero when not given).
type timeFlag struct{ time.Time }

// String formats the time (RFC 3339, "" when zero).
func (t *timeFlag) String() string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// Set parses an RFC 3339 time ("" leaves it zero).
func (t *timeFlag) Set(s string) error {
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time such as 2026-11-30T10:00:00Z: %v", err)
	}
	t.Time = v
	return nil
}

// urlsFlag is a comma-separated list of URLs.
type urlsFlag []string

// String joins the URLs with commas.
func (u *urlsFlag) String() string { return strings.Join(*u, ",") }

// Set parses a comma-separated list ("" is empty); each URL needs a host and port.
func (u *urlsFlag) Set(s string) error {
	*u = nil
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		hostport := strings.TrimPrefix(e, "http://")
		if _, _, err := net.SplitHostPort(hostport); err != nil || strings.Contains(hostport, "/") {
			return fmt.Errorf("want http://host:port URLs separated by commas, got %q", e)
		}
		*u = append(*u, e)
	}
	return nil
}

func (s *reregistrationStorm) validateShard() error {
	sh := s.Shard
	switch {
	case sh.sharded() && s.StartAt.IsZero():
		return scenarios.Usagef("--shard %s: give every shard the same --start-at (RFC 3339) so their timelines share a zero", sh.String())
	case sh.K >= 1 && len(s.ShardEndpoints) == 0:
		return scenarios.Usagef("--shard %s: give --shard-endpoints, the client URLs of the members shard 0 started (it prints them)", sh.String())
	case sh.K == 0 && len(s.ShardEndpoints) > 0:
		return scenarios.Usagef("--shard-endpoints is for shards 1…n−1; shard 0 starts the members itself")
	}
	return nil
}

// The shards coordinate through the registry itself, on keys outside the
// registrants' prefix, written and read on the members directly (never
// through the proxies the fault cuts): shard 0 announces each phase's
// cluster, then the instant of the loss once every shard's registrants are
// listed; each other shard says when its fleet is back.
const (
	coordPrefix = "/sdchaos/storm-shards/"
	coordPhase  = coordPrefix + "phase"
	coordPoll   = 200 * time.Millisecond
)

func coordLoss(id string) string           { return coordPrefix + "loss/" + id }
func coordDone(id string) string           { return coordPrefix + "done/" + id + "/" }
func coordDoneKey(id string, k int) string { return coordDone(id) + strconv.Itoa(k) }

// coordPut writes one coordination key, retrying for up to coordPutLimit
// (an overloaded registry may miss one 5 s deadline).
func coordPut(ctx context.Context, cli *clientv3.Client, key, val string) error {
	deadline := time.Now().Add(coordPutLimit)
	for {
		c, cancel := context.WithTimeout(ctx, countTimeout)
		_, err := cli.Put(c, key, val)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("writing the shards' key %s: %w", key, err)
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(coordPoll)); err != nil {
			return err
		}
	}
}

// coordPutLimit bounds the retries of one coordination write.
const coordPutLimit = 30 * time.Second

// coordWait polls key until ok accepts its value or limit passes.
func coordWait(ctx context.Context, cli *clientv3.Client, key string, limit time.Duration, ok func(string) bool) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		c, cancel := context.WithTimeout(ctx, countTimeout)
		r, err := cli.Get(c, key)
		cancel()
		if err == nil && len(r.Kvs) == 1 && ok(string(r.Kvs[0].Value)) {
			return string(r.Kvs[0].Value), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("waiting %s for the shards' key %s", limit, key)
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(coordPoll)); err != nil {
			return "", err
		}
	}
}

// coordCount polls until n keys are under prefix or limit passes, and
// returns how many there were.
func coordCount(ctx context.Context, cli *clientv3.Client, prefix string, n int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		c, cancel := context.WithTimeout(ctx, countTimeout)
		r, err := cli.Get(c, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		cancel()
		got := 0
		if err == nil {
			got = int(r.Count)
		}
		if got >= n || time.Now().After(deadline) || clock.SleepUntil(ctx, time.Now().Add(2*coordPoll)) != nil {
			return got
		}
	}
}

// coordClient is a client on the members themselves.
func coordClient(endpoints []string) (*clientv3.Client, error) {
	cli, err := etcdcli.New(endpoints...)
	if err != nil {
		return nil, fmt.Errorf("connecting to the members for the shards' keys: %w", err)
	}
	return cli, nil
}

// coordGetter is the part of an etcd client the shards' keys need.
type coordGetter interface {
	Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error)
}

// coordGet reads one coordination key once.
func coordGet(ctx context.Context, cli coordGetter, key string) (string, bool) {
	c, cancel := context.WithTimeout(ctx, countTimeout)
	defer cancel()
	r, err := cli.Get(c, key)
	if err != nil || len(r.Kvs) != 1 {
		return "", false
	}
	return string(r.Kvs[0].Value), true
}
