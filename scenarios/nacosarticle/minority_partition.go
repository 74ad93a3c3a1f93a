//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "minority-partition",
		Article: "Nacos article / 47.3",
		Summary: "one etcd member cut off from its peers but alive: stale reads on it, writes on the majority",
		Help: `Setup: 3 etcd members, --instances instances on leases. At --partition-at the member chosen by
--isolate (leader or follower) is cut off from its two peers (raft traffic only, both directions,
or only its own side with --one-way; clients still reach it) with etcd's CutPeer inside the member
processes. Then, each with a --op-timeout deadline: the majority's leader is awaited, a new key is
put on the majority, an instance's lease is renewed through the majority; on the isolated member a
serializable read of that key, a linearizable read and a put. After --partition the cut is mended
and the isolated member is polled until it serves the new key.

Reproduced when: on the isolated member the serializable read succeeds and is stale (the new key
is missing), the linearizable read and the put fail within their deadline (+500 ms); the majority
has a leader, its put and keepalive succeed; after healing the isolated member serves the new key
within 10 s. The run ends as soon as the member has caught up, at the latest at --duration
(default --partition-at + --partition + 10 s).`,
		New: func() Config {
			return &minorityPartition{svc: defaultServiceParams(), Isolate: "leader", PartitionAt: 2 * time.Second,
				Partition: 6 * time.Second, OpTimeout: 2 * time.Second}
		},
	})
}

// minorityPartition isolates one member while it stays alive.
type minorityPartition struct {
	svc                               serviceParams
	Isolate                           string
	OneWay                            bool
	PartitionAt, Partition, OpTimeout time.Duration
}

// catchUpAllowance bounds the wait for the healed member to serve the new key.
const catchUpAllowance = 10 * time.Second

func (s *minorityPartition) Defaults(c *Common) {
	c.Duration = s.PartitionAt + s.Partition + catchUpAllowance
}

func (s *minorityPartition) Flags(fs *flag.FlagSet) {
	s.svc.bind(fs)
	fs.StringVar(&s.Isolate, "isolate", s.Isolate, "which member to cut off: leader or follower")
	fs.BoolVar(&s.OneWay, "one-way", s.OneWay, "cut only the isolated member's side of the raft links")
	fs.DurationVar(&s.PartitionAt, "partition-at", s.PartitionAt, "when the member is cut off")
	fs.DurationVar(&s.Partition, "partition", s.Partition, "how long the partition lasts")
	fs.DurationVar(&s.OpTimeout, "op-timeout", s.OpTimeout, "deadline of each probe")
}

func (s *minorityPartition) Validate(c Common) error {
	if err := s.svc.validate(); err != nil {
		return err
	}
	switch {
	case s.Isolate != "leader" && s.Isolate != "follower":
		return Usagef("--isolate %q: want leader or follower", s.Isolate)
	case s.PartitionAt <= 0 || s.OpTimeout <= 0:
		return Usagef("--partition-at (%s) and --op-timeout (%s) must be positive", s.PartitionAt, s.OpTimeout)
	case s.Partition < 2*s.OpTimeout+2*time.Second:
		return Usagef("--partition (%s) must be at least 2 × --op-timeout + 2s (%s): the probes run inside it", s.Partition, 2*s.OpTimeout+2*time.Second)
	case c.Duration < s.PartitionAt+s.Partition+time.Second:
		return Usagef("--duration (%s) must be at least --partition-at + --partition + 1s (%s)", c.Duration, s.PartitionAt+s.Partition+time.Second)
	}
	return nil
}

// partitionRun holds what one run measured.
type partitionRun struct {
	iso                    string
	wasLeader              bool
	leaderMs               float64
	majPut, majKeepalive   probe
	isoSer, isoLin, isoPut probe
	isoSerStale, caughtUp  bool
	catchUpMs              float64
	marks                  []report.Mark
	timeline               time.Duration
}

func (s *minorityPartition) Run(ctx context.Context, env *Env) (*report.Result, error) {
	r, err := startRig(ctx, env, s.svc)
	if err != nil {
		return nil, err
	}
	defer r.close()
	iso, majority, err := s.pick(ctx, env, r.cluster)
	if err != nil {
		return nil, err
	}
	isoCli, err := iso.Client()
	if err != nil {
		return nil, err
	}
	defer isoCli.Close()
	majCli, err := cluster.NewClient(endpointsOf(majority)...)
	if err != nil {
		return nil, err
	}
	defer majCli.Close()
	out := &partitionRun{iso: iso.Name, wasLeader: s.Isolate == "leader", timeline: env.Duration}
	rec := report.NewRecorder(time.Now().Add(startLead))
	part := fault.PartitionPeer{Cluster: r.cluster, Node: iso, OneWay: s.OneWay}
	if err := clock.SleepUntil(ctx, rec.T0().Add(s.PartitionAt)); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := part.Inject(ctx); err != nil {
		return nil, fmt.Errorf("partitioning %s: %w", iso.Name, err)
	}
	rec.MarkAt(start, part.Name())
	env.Printf("%s (%s) cut off from its peers; probing both sides", iso.Name, s.Isolate)
	if err := s.probeMajority(ctx, r, majority, majCli, start, out); err != nil {
		return nil, err
	}
	s.probeIsolated(ctx, isoCli, out)
	if err := clock.SleepUntil(ctx, rec.T0().Add(s.PartitionAt+s.Partition)); err != nil {
		return nil, err
	}
	healed := time.Now()
	if err := part.Heal(ctx); err != nil {
		return nil, fmt.Errorf("healing the partition: %w", err)
	}
	rec.MarkAt(healed, "healed: "+part.Name())
	deadline := rec.T0().Add(env.Duration)
	out.caughtUp, out.catchUpMs = waitForKey(ctx, isoCli, probeKey, deadline)
	if out.caughtUp {
		env.Printf("%s serves the new key %.0f ms after healing", iso.Name, out.catchUpMs)
	}
	out.timeline = time.Since(rec.T0()) // the run ends once the member caught up (or at --duration)
	out.marks = rec.Marks()
	return s.judge(out), nil
}

// probeKey is written on the majority during the partition.
const probeKey = "/probe/written-on-the-majority"

// pick returns the member to isolate and the others.
func (s *minorityPartition) pick(ctx context.Context, env *Env, c *cluster.Cluster) (*cluster.Node, []*cluster.Node, error) {
	leader, err := c.WaitLeader(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("finding the leader: %w", err)
	}
	var followers []*cluster.Node
	for _, n := range c.Nodes() {
		if n != leader {
			followers = append(followers, n)
		}
	}
	iso := leader
	if s.Isolate == "follower" {
		iso = followers[env.Rand.IntN(len(followers))]
	}
	var rest []*cluster.Node
	for _, n := range c.Nodes() {
		if n != iso {
			rest = append(rest, n)
		}
	}
	return iso, rest, nil
}

func endpointsOf(ns []*cluster.Node) []string {
	eps := make([]string, len(ns))
	for i, n := range ns {
		eps[i] = n.ClientURL()
	}
	return eps
}

func (s *minorityPartition) probeMajority(ctx context.Context, r *rig, majority []*cluster.Node, cli *clientv3.Client, start time.Time, out *partitionRun) error {
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := r.cluster.WaitLeader(wctx, majority...); err != nil {
		return fmt.Errorf("waiting for a leader on the majority: %w", err)
	}
	out.leaderMs = report.Ms(time.Since(start))
	out.majPut = s.timedOp(ctx, func(c context.Context) (int, error) {
		_, err := cli.Put(c, probeKey, "v")
		return 0, err
	})
	lease := r.group.Instances[0].Lease()
	out.majKeepalive = s.timedOp(ctx, func(c context.Context) (int, error) {
		_, err := cli.KeepAliveOnce(c, lease)
		return 0, err
	})
	return nil
}

// probeIsolated runs the three probes on the isolated member at once.
func (s *minorityPartition) probeIsolated(ctx context.Context, cli *clientv3.Client, out *partitionRun) {
	done := make(chan struct{}, 3)
	go func() {
		out.isoSer = s.timedOp(ctx, func(c context.Context) (int, error) {
			resp, err := cli.Get(c, probeKey, clientv3.WithSerializable())
			return countKvs(resp), err
		})
		out.isoSerStale = out.isoSer.ok && out.isoSer.keys == 0
		done <- struct{}{}
	}()
	go func() {
		out.isoLin = s.timedOp(ctx, func(c context.Context) (int, error) {
			resp, err := cli.Get(c, probeKey)
			return countKvs(resp), err
		})
		done <- struct{}{}
	}()
	go func() {
		out.isoPut = s.timedOp(ctx, func(c context.Context) (int, error) {
			_, err := cli.Put(c, "/probe/written-on-the-isolated-member", "v")
			return 0, err
		})
		done <- struct{}{}
	}()
	for range 3 {
		<-done
	}
}

func (s *minorityPartition) timedOp(ctx context.Context, f func(context.Context) (int, error)) probe {
	return timed(func() (int, error) {
		c, cancel := context.WithTimeout(ctx, s.OpTimeout)
		defer cancel()
		return f(c)
	})
}

func countKvs(resp *clientv3.GetResponse) int {
	if resp == nil {
		return 0
	}
	return len(resp.Kvs)
}

// waitForKey polls a serializable read of key until it is present or the
// deadline passes; it returns whether it appeared and after how many ms.
func waitForKey(ctx context.Context, cli *clientv3.Client, key string, deadline time.Time) (bool, float64) {
	start := time.Now()
	for time.Now().Before(deadline) {
		c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		resp, err := cli.Get(c, key, clientv3.WithSerializable())
		cancel()
		if err == nil && len(resp.Kvs) > 0 {
			return true, report.Ms(time.Since(start))
		}
		if clock.SleepUntil(ctx, time.Now().Add(50*time.Millisecond)) != nil {
			break
		}
	}
	return false, report.Ms(time.Since(start))
}
