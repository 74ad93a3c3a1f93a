package storm

import (
	"context"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/etcdcli"
)

// Coord is how the shards of one storm agree, through the registry itself,
// on keys outside the registrants' prefix, written and read on the members
// directly (never through the links the fault cuts): shard 0 announces each
// phase's cluster, then the instant of the loss once every shard's
// registrants are listed; each other shard says when its fleet is back.
type Coord struct {
	cli     *clientv3.Client
	timeout time.Duration
	own     bool
}

// The coordination keys and their pacing.
const (
	coordPrefix = "/sdchaos/storm-shards/"
	coordPhase  = coordPrefix + "phase"
	coordPoll   = 200 * time.Millisecond
	// coordPutLimit bounds the retries of one coordination write (an
	// overloaded registry may miss one deadline).
	coordPutLimit = 30 * time.Second
)

func coordLoss(id string) string           { return coordPrefix + "loss/" + id }
func coordDone(id string) string           { return coordPrefix + "done/" + id + "/" }
func coordDoneKey(id string, k int) string { return coordDone(id) + strconv.Itoa(k) }

// NewCoord coordinates over cli (not closed by Close); timeout bounds each
// request.
func NewCoord(cli *clientv3.Client, timeout time.Duration) *Coord {
	return &Coord{cli: cli, timeout: timeout}
}

// DialCoord connects to the members at endpoints for the shards' keys;
// Close releases the client.
func DialCoord(endpoints []string, timeout time.Duration) (*Coord, error) {
	cli, err := etcdcli.New(endpoints...)
	if err != nil {
		return nil, fmt.Errorf("connecting to the members for the shards' keys: %w", err)
	}
	return &Coord{cli: cli, timeout: timeout, own: true}, nil
}

// Close releases a client DialCoord opened.
func (c *Coord) Close() {
	if c.own {
		c.cli.Close()
	}
}

// AnnouncePhase says (shard 0) that phase id's cluster is up.
func (c *Coord) AnnouncePhase(ctx context.Context, id string) error {
	return c.put(ctx, coordPhase, id)
}

// AnnounceLoss says (shard 0) when phase id's links go down.
func (c *Coord) AnnounceLoss(ctx context.Context, id string, at time.Time) error {
	return c.put(ctx, coordLoss(id), strconv.FormatInt(at.UnixNano(), 10))
}

// ReportBack says (shard k ≥ 1) how many of its registrants came back.
func (c *Coord) ReportBack(ctx context.Context, id string, k, back, size int) error {
	return c.put(ctx, coordDoneKey(id, k), fmt.Sprintf("%d/%d", back, size))
}

// WaitPhase waits (shard k ≥ 1) until shard 0 announces phase id.
func (c *Coord) WaitPhase(ctx context.Context, id string, limit time.Duration) error {
	_, err := c.wait(ctx, coordPhase, limit, func(v string) bool { return v == id })
	return err
}

// Loss reads phase id's loss instant once (false while not announced).
func (c *Coord) Loss(ctx context.Context, id string) (time.Time, bool, error) {
	v, ok := c.get(ctx, coordLoss(id))
	if !ok {
		return time.Time{}, false, nil
	}
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("bad loss instant %q from shard 0", v)
	}
	return time.Unix(0, ns), true, nil
}

// CountBack waits (shard 0) until n shards reported phase id or limit
// passes, and returns how many had.
func (c *Coord) CountBack(ctx context.Context, id string, n int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		cc, cancel := context.WithTimeout(ctx, c.timeout)
		r, err := c.cli.Get(cc, coordDone(id), clientv3.WithPrefix(), clientv3.WithCountOnly())
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

// Clean deletes every coordination key (a cluster the run did not start
// keeps nothing of the run).
func (c *Coord) Clean(ctx context.Context) error {
	cc, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	_, err := c.cli.Delete(cc, coordPrefix, clientv3.WithPrefix())
	return err
}

// put writes one key, retrying for up to coordPutLimit.
func (c *Coord) put(ctx context.Context, key, val string) error {
	deadline := time.Now().Add(coordPutLimit)
	for {
		cc, cancel := context.WithTimeout(ctx, c.timeout)
		_, err := c.cli.Put(cc, key, val)
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

// wait polls key until ok accepts its value or limit passes.
func (c *Coord) wait(ctx context.Context, key string, limit time.Duration, ok func(string) bool) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		if v, found := c.get(ctx, key); found && ok(v) {
			return v, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("waiting %s for the shards' key %s", limit, key)
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(coordPoll)); err != nil {
			return "", err
		}
	}
}

// get reads one key once.
func (c *Coord) get(ctx context.Context, key string) (string, bool) {
	cc, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	r, err := c.cli.Get(cc, key)
	if err != nil || len(r.Kvs) != 1 {
		return "", false
	}
	return string(r.Kvs[0].Value), true
}

// PollInterval is how often a shard polls the coordination keys.
const PollInterval = coordPoll
