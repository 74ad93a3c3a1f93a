package article47

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/cluster"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/etcd"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "minority",
		Article: "article 47.3",
		Summary: "2 of 3 etcd members die: what the survivor still serves, and what is left when the majority returns",
		Help: `Setup: 3 etcd members, --instances instances on leases (--ttl, renewed every --renew). At
--outage-at two members (the survivor is drawn from --seed) are SIGKILLed. Once the survivor
reports no leader (a leader that lost its quorum keeps renewing leases locally until CheckQuorum
steps it down, about one election timeout), on the survivor, each with a --op-timeout deadline
and at the same moment: a linearizable read, a serializable read of /svc/, a put, and a
KeepAliveOnce of an instance's lease. After --outage the two members restart on their data dirs;
as soon as a leader exists the instance keys and each lease's remaining TTL are read; at
--duration (the end of the timeline; by default --outage-at + --outage + 2s) the keys are read
once more.

Bands (etcd v3.7 rules): without quorum a linearizable read waits on ReadIndex, a put and a
keepalive wait for a leader, so each fails at the caller's deadline: [deadline − 100 ms,
deadline + 500 ms]; a serializable read is served locally (≤ 50 ms) and sees every instance key.
A new leader runs lessor.Promote(election timeout): every lease's expiry becomes now + ttl +
election timeout, so a remaining TTL read d s after the election is within [ttl − d − 1, ttl +
election timeout + 1] s (1 s for etcd's whole-second TTLs); a lease not reset would show at most
ttl − outage (the check is invalid when the outage is too short to tell the two apart).
Article: 2002 ms, 1 ms and 6 keys (3 + 3 left over from its earlier sections), 2002 ms, 2003 ms,
3/3, TTLs 19, 18, 18.

Linearizability (issue 12): meanwhile every member gets open-loop key-value traffic through its
own client (3 ops/s each: a put of a unique value, a linearizable get, a serializable get, on 3
keys, each with an --op-timeout deadline); at the end each key is read through every member.
Porcupine (a register per key, bounded at 10 s: a check it gives up on is invalid) must find the
puts and linearizable gets linearizable, and no acknowledged put may be missing at the end (the
killed members restart on their data dirs). The survivor's serializable gets are added and the
result reported, not judged: no put can be acknowledged during the outage, so a stale read needs
the survivor to have missed a commit just before the kill. With --out the history is written as
minority.history.html.`,
		New: func() scenarios.Config {
			return &minority{Svc: scenarios.DefaultServiceParams(), OutageAt: 2 * time.Second, Outage: 8 * time.Second,
				OpTimeout: 2 * time.Second}
		},
	})
}

// minority is article 47.3.
type minority struct {
	Svc                         scenarios.ServiceParams
	OutageAt, Outage, OpTimeout time.Duration
}

// recoveryAllowance is the time reserved after the outage for a leader
// election and the recovery reads.
const recoveryAllowance = 2 * time.Second

// finalReadsWithin bounds the reads of the key-value traffic's keys at the end.
const finalReadsWithin = 10 * time.Second

func (s *minority) Defaults(c *scenarios.Common) {
	c.Duration = s.OutageAt + s.Outage + recoveryAllowance
}

func (s *minority) Flags(fs *flag.FlagSet) {
	s.Svc.Bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when 2 of the 3 etcd members are SIGKILLed")
	fs.DurationVar(&s.Outage, "outage", s.Outage, "how long they stay down before restarting on their data dirs")
	fs.DurationVar(&s.OpTimeout, "op-timeout", s.OpTimeout, "deadline of each probe on the survivor")
}

func (s *minority) Validate(c scenarios.Common) error {
	if err := s.Svc.Validate(); err != nil {
		return err
	}
	switch {
	case s.OutageAt <= 0:
		return scenarios.Usagef("--outage-at (%s) must be positive", s.OutageAt)
	case s.OpTimeout <= 0:
		return scenarios.Usagef("--op-timeout (%s) must be positive", s.OpTimeout)
	case s.Outage <= s.OpTimeout:
		return scenarios.Usagef("--outage (%s) must be longer than --op-timeout (%s): the probes must end before the majority returns", s.Outage, s.OpTimeout)
	case c.Duration < s.OutageAt+s.Outage+recoveryAllowance:
		return scenarios.Usagef("--duration (%s) must be at least --outage-at + --outage + %s (%s) to measure the recovery",
			c.Duration, recoveryAllowance, s.OutageAt+s.Outage+recoveryAllowance)
	}
	return nil
}

// The probes' op names.
const (
	opLeaderless = "survivor/leaderless"
	opLinRead    = "survivor/lin_read"
	opSerRead    = "survivor/ser_read"
	opPut        = "survivor/put"
	opKeepalive  = "survivor/keepalive"
	opLeader     = "recovery/leader"
	opKeys       = "recovery/keys"
	opTTL        = "recovery/ttl"
	opEndKeys    = "end/keys"
)

// Run is the plan: kill two members for --outage; probe the survivor once
// it has no leader; after the restart read the keys and their TTLs; read
// the keys once more at the end. Key-value traffic runs on every member
// until the last probe, then every key is read once more.
func (s *minority) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	return etcd.RunPlan(ctx, env, etcd.EtcdOptions{Instances: s.Svc.Instances, Service: s.Svc.Config()}, etcd.Plan{
		KV: &etcd.KVPlan{Timeout: s.OpTimeout, FinalWithin: finalReadsWithin, UntilTimeline: true},
		Timeline: func(_ context.Context, r *etcd.Etcd) (fault.Timeline, error) {
			return s.timeline(env, r)
		},
	})
}

// timeline picks the survivor (seeded) and kills the two others.
func (s *minority) timeline(env *scenarios.Env, r *etcd.Etcd) (fault.Timeline, error) {
	nodes := r.Cluster.Nodes()
	surv := nodes[env.Rand.IntN(len(nodes))]
	var killed []*cluster.Node
	for _, n := range nodes {
		if n != surv {
			killed = append(killed, n)
		}
	}
	p, err := s.newProbes(r, surv)
	if err != nil {
		return nil, err
	}
	r.Defer(p.close)
	env.Printf("survivor %s", surv.Name)
	return fault.Timeline{
		{At: s.OutageAt, For: s.Outage, Fault: etcd.KillNodes{Nodes: killed}},
		{At: s.OutageAt, Probe: p.survivor()},
		{At: s.OutageAt + s.Outage, Probe: p.recovery()},
		{At: env.Duration, Probe: p.end()},
	}, nil
}

// minorityProbes reads the survivor and, after the restart, the cluster.
type minorityProbes struct {
	s                 *minority
	r                 *etcd.Etcd
	surv              *cluster.Node
	survCli, allCli   *clientv3.Client
	lease             clientv3.LeaseID
	prefix, survivorN string
}

func (s *minority) newProbes(r *etcd.Etcd, surv *cluster.Node) (*minorityProbes, error) {
	survCli, err := surv.Client()
	if err != nil {
		return nil, err
	}
	allCli, err := r.Cluster.Client()
	if err != nil {
		survCli.Close()
		return nil, err
	}
	return &minorityProbes{s: s, r: r, surv: surv, survCli: survCli, allCli: allCli, lease: r.Group.Instances[0].Lease(),
		prefix: fakeservice.Prefix, survivorN: surv.Name}, nil
}

func (p *minorityProbes) close() { p.survCli.Close(); p.allCli.Close() }

// survivor waits until the survivor has no leader, then runs the four
// operations on it at the same moment.
func (p *minorityProbes) survivor() fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Targets: []string{p.survivorN},
		Label: "probe the survivor " + p.survivorN}, Func: func(ctx context.Context, rec *history.Recorder) error {
		op := rig.Op(ctx, rec, opLeaderless, p.survivorN, 10*time.Second, func(c context.Context) (int, string, error) {
			return 0, "", cluster.WaitLeaderless(c, p.surv, p.survCli, 10*time.Second)
		})
		if op.Outcome != history.OK {
			return fmt.Errorf("survivor %s: %s", p.survivorN, op.Err)
		}
		done := make(chan struct{}, 4)
		for name, f := range p.survivorOps() {
			go func() {
				rig.Op(ctx, rec, name, p.survivorN, p.s.OpTimeout, f)
				done <- struct{}{}
			}()
		}
		for range 4 {
			<-done
		}
		return nil
	}}
}

func (p *minorityProbes) survivorOps() map[string]func(context.Context) (int, string, error) {
	cli := p.survCli
	return map[string]func(context.Context) (int, string, error){
		opLinRead: func(c context.Context) (int, string, error) {
			n, err := cluster.CountPrefix(c, cli, p.prefix, p.s.OpTimeout, false)
			return n, "", err
		},
		opSerRead: func(c context.Context) (int, string, error) {
			n, err := cluster.CountPrefix(c, cli, p.prefix, p.s.OpTimeout, true)
			return n, "", err
		},
		opPut: func(c context.Context) (int, string, error) {
			_, err := cli.Put(c, "/probe/minority", "written on the minority")
			return 0, "", err
		},
		opKeepalive: func(c context.Context) (int, string, error) {
			_, err := cli.KeepAliveOnce(c, p.lease)
			return 0, "", err
		},
	}
}

// recovery waits until the killed members run again and a leader exists,
// then reads the instance keys and each lease's remaining TTL.
func (p *minorityProbes) recovery() fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "read keys and TTLs once a leader is back"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			op := rig.Op(ctx, rec, opLeader, "", 30*time.Second, func(c context.Context) (int, string, error) {
				return 0, "", p.waitLeader(c)
			})
			if op.Outcome != history.OK {
				return fmt.Errorf("waiting for a leader after the restart: %s", op.Err)
			}
			return p.readLeases(ctx, rec)
		}}
}

// waitLeader waits until every member runs and they agree on a leader.
func (p *minorityProbes) waitLeader(ctx context.Context) error {
	for _, n := range p.r.Cluster.Nodes() {
		for !n.Running() {
			if err := clock.SleepFor(ctx, 20*time.Millisecond); err != nil {
				return err
			}
		}
	}
	_, err := p.r.Cluster.WaitLeader(ctx)
	return err
}

// readLeases records the keys seen and one op per lease with its remaining TTL (Count, seconds).
func (p *minorityProbes) readLeases(ctx context.Context, rec *history.Recorder) error {
	var kvs []*mvccKV
	rig.Op(ctx, rec, opKeys, "", p.s.OpTimeout, func(c context.Context) (int, string, error) {
		resp, err := p.allCli.Get(c, p.prefix, clientv3.WithPrefix())
		if err != nil {
			return 0, "", err
		}
		for _, kv := range resp.Kvs {
			kvs = append(kvs, &mvccKV{key: string(kv.Key), lease: clientv3.LeaseID(kv.Lease)})
		}
		return len(resp.Kvs), "", nil
	})
	for _, kv := range kvs {
		rig.Op(ctx, rec, opTTL, kv.key, p.s.OpTimeout, func(c context.Context) (int, string, error) {
			ttl, err := p.allCli.TimeToLive(c, kv.lease)
			if err != nil {
				return 0, "", err
			}
			return int(ttl.TTL), strconv.FormatInt(ttl.TTL, 10), nil
		})
	}
	return nil
}

// mvccKV is a key and its lease.
type mvccKV struct {
	key   string
	lease clientv3.LeaseID
}

// end counts the instance keys at the end of the timeline.
func (p *minorityProbes) end() fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "count the keys at the end"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			rig.Op(ctx, rec, opEndKeys, "", p.s.OpTimeout, func(c context.Context) (int, string, error) {
				n, err := cluster.CountPrefix(c, p.allCli, p.prefix, p.s.OpTimeout, false)
				return n, "", err
			})
			return nil
		}}
}

// MemberFaults says that the plan kills two members and restarts them.
func (s *minority) MemberFaults() []scenarios.MemberFault {
	return []scenarios.MemberFault{{Fault: "SIGKILL of two members and their restart", Actions: []cluster.Action{cluster.ActKill, cluster.ActStart}}}
}
