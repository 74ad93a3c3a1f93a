package nacosarticle

import (
	"context"
	"flag"
	"fmt"
	"time"

	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/etcd"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "minority-partition",
		Article: "Nacos article / 47.3",
		Summary: "one etcd member cut off from its peers but alive: stale reads on it, writes on the majority",
		Help: `Setup: 3 etcd members, --instances instances on leases. At --partition-at the member chosen by
--isolate (leader or follower; a follower is drawn from --seed) is cut off from its two peers (raft
traffic only, both directions, or only its own side with --one-way; clients still reach it) with
etcd's CutPeer inside the member processes. A probe step then waits until the majority agrees on a
leader among itself, puts a new key and renews an instance's lease through the majority, and then,
at the same moment on the isolated member, runs a serializable read of that key, a linearizable
read and a put — each with an --op-timeout deadline. After --partition the cut is mended and a
second probe polls the isolated member until it serves the new key (at most until --duration,
default --partition-at + --partition + 10s).

Bands (etcd v3.7 rules): the isolated member cannot reach a quorum, so a linearizable read waits on
ReadIndex and a put waits for a leader (raft takes no proposal without one): each fails at the
caller's deadline, [deadline − 100 ms, deadline + 500 ms]; a serializable read is served from its
own store (≤ 50 ms) and is stale: the key written on the majority is missing. The majority (2 of
3) elects a leader within 2 × election timeout + 1 s of the cut and its put and keepalive succeed.
After the mend the leader's next heartbeat (every 100 ms) brings the isolated member back (PreVote
kept its term, so it rejoins as a follower) and it catches up: it serves the key within election
timeout + 1 s of the mend.
Article (47.3, a minority after a kill): linearizable read and write fail at 2002 ms, a
serializable read succeeds in 1 ms.

Linearizability (issue 12): meanwhile every member, the isolated one included, gets open-loop
key-value traffic through its own client (3 ops/s each: a put of a unique value, a linearizable
get, a serializable get, on 3 keys, each with an --op-timeout deadline) until the member has
caught up; then each key is read once through every member. Porcupine (a register per key,
bounded at 10 s: a check it gives up on is invalid) must find the puts and linearizable gets
linearizable; adding the isolated member's serializable gets must not be (a put acknowledged by
the majority after the cut cannot reach it: its later serializable get is stale; judged unless
--one-way, where the member may still receive the leader's entries); no acknowledged put may be
missing after healing. With --out the history is written as minority-partition.history.html.

Packet-level cut (issue 14): with --net private --cut packets the run moves into a private network
namespace (members on 198.18.0.1–3) and the member is cut off by dropping every packet between it
and its peers (nf_tables; with --one-way only the packets it sends) instead of CutPeer; the probes
and bands are the same, except where TCP makes packets behave differently:
  a one-way drop is no one-way cut for long: the member's ACKs are lost, so its peers' connections
    to it stall after their retransmission timeouts (measured 1–2.5 s) — a full cut; until then it
    may still receive entries, so its serializable read is reported, not judged stale;
  the rejoin waits for TCP: what the peers sent during the cut sits in TCP's retransmission
    back-off (Linux: the first retransmission after 200 ms for data, 1 s for a SYN, each next one
    twice as late), so the first retransmission after the heal comes within the cut's length + 1 s:
    the member serves the new key within cut + 1 s + election timeout + 1 s (CutPeer mends at once),
    and the run waits that long + 1 s after the mend.
The variants packets and packets-one-way show both modes side by side with the default cut.`,
		Variants: []scenarios.Variant{{Name: "follower", Args: []string{"--isolate", "follower"},
			Why: "a follower cut off: the majority keeps its leader; the same bands hold"},
			{Name: "packets", Args: []string{"--net", "private", "--cut", "packets"},
				Why: "the cut made of dropped packets in a private network namespace: the same verdicts; the rejoin waits for TCP's retransmission back-off"},
			{Name: "packets-one-way", Args: []string{"--net", "private", "--cut", "packets", "--one-way"},
				Why: "only the member's outgoing packets dropped: its lost ACKs stall its peers' connections, so TCP makes it a full cut within seconds"}},
		New: func() scenarios.Config {
			return &minorityPartition{Svc: scenarios.DefaultServiceParams(), Isolate: "leader", Cut: cutRaft, PartitionAt: 2 * time.Second,
				Partition: 6 * time.Second, OpTimeout: 2 * time.Second}
		},
	})
}

// minorityPartition isolates one member while it stays alive.
type minorityPartition struct {
	Svc     scenarios.ServiceParams
	Isolate string
	// Cut is how the member is cut off: cutRaft (etcd's CutPeer) or
	// cutPackets (its packets dropped; --net private).
	Cut                               string
	OneWay                            bool
	PartitionAt, Partition, OpTimeout time.Duration
}

// catchUpAllowance bounds the wait for the healed member to serve the new
// key (with --cut packets at least the band's top + 1 s: catchUpWait).
const catchUpAllowance = 10 * time.Second

// The ways to cut the member off (--cut).
const (
	// cutRaft is etcd's own switch inside the member processes (CutPeer).
	cutRaft = "raft"
	// cutPackets drops the packets between the member and its peers in the
	// run's private network namespace (DropPeerPackets).
	cutPackets = "packets"
)

// finalReadsWithin bounds the reads of the key-value traffic's keys after healing.
const finalReadsWithin = 10 * time.Second

// The probes' op names.
const (
	opMajLeader    = "majority/leader"
	opMajPut       = "majority/put"
	opMajKeepalive = "majority/keepalive"
	opIsoSerRead   = "isolated/ser_read"
	opIsoLinRead   = "isolated/lin_read"
	opIsoPut       = "isolated/put"
	opCaughtUp     = "healed/serves_new_key"
)

// probeKey is written on the majority during the partition.
const probeKey = "/probe/written-on-the-majority"

func (s *minorityPartition) Defaults(c *scenarios.Common) {
	c.Duration = s.PartitionAt + s.Partition + s.catchUpWait()
}

// catchUpWait is how long the run waits after the mend for the member to
// serve the new key: catchUpAllowance, and with packets at least the
// band's top (for a cut as long as --partition) + 1 s.
func (s *minorityPartition) catchUpWait() time.Duration {
	if s.Cut != cutPackets {
		return catchUpAllowance
	}
	return max(catchUpAllowance, catchUpMax(true, s.Partition)+time.Second)
}

func (s *minorityPartition) Flags(fs *flag.FlagSet) {
	s.Svc.Bind(fs)
	fs.StringVar(&s.Isolate, "isolate", s.Isolate, "which member to cut off: leader or follower")
	fs.StringVar(&s.Cut, "cut", s.Cut, "how the member is cut off: raft (etcd's CutPeer switch inside the members) or packets "+
		"(every packet between it and its peers dropped; needs --net private)")
	fs.BoolVar(&s.OneWay, "one-way", s.OneWay, "cut only the isolated member's side of the raft links (with --cut packets: drop only the packets it sends)")
	fs.DurationVar(&s.PartitionAt, "partition-at", s.PartitionAt, "when the member is cut off")
	fs.DurationVar(&s.Partition, "partition", s.Partition, "how long the partition lasts")
	fs.DurationVar(&s.OpTimeout, "op-timeout", s.OpTimeout, "deadline of each probe")
}

func (s *minorityPartition) Validate(c scenarios.Common) error {
	if err := s.Svc.Validate(); err != nil {
		return err
	}
	switch {
	case s.Isolate != "leader" && s.Isolate != "follower":
		return scenarios.Usagef("--isolate %q: want leader or follower", s.Isolate)
	case s.Cut != cutRaft && s.Cut != cutPackets:
		return scenarios.Usagef("--cut %q: want %s or %s", s.Cut, cutRaft, cutPackets)
	case s.Cut == cutPackets && c.Net != rig.Private:
		return scenarios.Usagef("--cut packets needs --net private: packets can only be dropped in the run's private network namespace")
	case s.PartitionAt <= 0 || s.OpTimeout <= 0:
		return scenarios.Usagef("--partition-at (%s) and --op-timeout (%s) must be positive", s.PartitionAt, s.OpTimeout)
	case s.Partition < 2*s.OpTimeout+2*time.Second:
		return scenarios.Usagef("--partition (%s) must be at least 2 × --op-timeout + 2s (%s): the probes run inside it", s.Partition, 2*s.OpTimeout+2*time.Second)
	case c.Duration < s.PartitionAt+s.Partition+time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --partition-at + --partition + 1s (%s)", c.Duration, s.PartitionAt+s.Partition+time.Second)
	}
	return nil
}

// Run is the plan: cut the member off for --partition; probe both sides
// once the cut is in place; after the mend, wait for the member to catch
// up, which ends the run. Key-value traffic runs on every member until the
// member caught up, then every key is read once more.
func (s *minorityPartition) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	return etcd.RunPlan(ctx, env, etcd.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config()}, etcd.Plan{
		KV:    &etcd.KVPlan{Timeout: s.OpTimeout, FinalWithin: finalReadsWithin, UntilTimeline: true},
		EndAt: opCaughtUp,
		Timeline: func(ctx context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			return s.timeline(ctx, env, r)
		},
	})
}

// timeline picks the member to isolate and cuts it off.
func (s *minorityPartition) timeline(ctx context.Context, env *scenarios.Env, r *etcd.Etcd) (fault.Timeline, error) {
	iso, majority, err := s.pick(ctx, env, r.Cluster)
	if err != nil {
		return nil, err
	}
	p, err := newPartitionProbes(s, r, iso, majority)
	if err != nil {
		return nil, err
	}
	r.Defer(p.close)
	cut, err := s.cutFault(env, r.Cluster, iso)
	if err != nil {
		return nil, err
	}
	env.Printf("isolating %s (%s)", iso.Name, s.Isolate)
	return fault.Timeline{
		{At: s.PartitionAt, For: s.Partition, Fault: cut},
		{At: s.PartitionAt, Probe: p.during()},
		{At: s.PartitionAt + s.Partition, Probe: p.healed(env.Duration)},
	}, nil
}

// cutFault cuts iso off: etcd's CutPeer, or with --cut packets every
// packet between it and its peers dropped (only those it sends with
// --one-way).
func (s *minorityPartition) cutFault(env *scenarios.Env, c *cluster.Cluster, iso *cluster.Node) (fault.Fault, error) {
	if s.Cut != cutPackets {
		return etcd.PartitionPeer{Cluster: c, Node: iso, OneWay: s.OneWay}, nil
	}
	f, err := env.Filter()
	if err != nil {
		return nil, fmt.Errorf("the cut's packet filter: %w", err)
	}
	dir := fault.BothWays
	if s.OneWay {
		dir = fault.Outbound
	}
	return &etcd.DropPeerPackets{Filter: f, Members: c.Nodes(), Node: iso, Loss: 1, Dir: dir}, nil
}

// cutKind is the event kind of the cut.
func (s *minorityPartition) cutKind() history.EventKind {
	if s.Cut == cutPackets {
		return history.PacketDropPeers
	}
	return history.PartitionMember
}

// pick returns the member to isolate and the others.
func (s *minorityPartition) pick(ctx context.Context, env *scenarios.Env, c *cluster.Cluster) (*cluster.Node, []*cluster.Node, error) {
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

// MemberFaults says that the plan isolates one member from its peers and
// heals the cut (with --cut raft; packet cuts need no nemesis and are not
// offered on an external cluster).
func (s *minorityPartition) MemberFaults() []scenarios.MemberFault {
	if s.Cut == cutPackets {
		return nil
	}
	return []scenarios.MemberFault{{Fault: "a cut between one member and its peers", Actions: []cluster.Action{cluster.ActIsolate, cluster.ActHeal}}}
}
