package scenarios

import (
	"context"
	"flag"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/cluster"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/report"
)

func init() {
	Register(Spec{
		Name:    "minority",
		Article: "article 47.3",
		Summary: "2 of 3 etcd members die: what the survivor still serves, and what is left when the majority returns",
		Help: `Setup: 3 etcd members, --instances instances on leases (--ttl, renewed every --renew). At
--outage-at two members (the survivor is drawn from --seed) are SIGKILLed. Once the survivor
reports no leader (a leader that lost its quorum keeps renewing leases locally until CheckQuorum
steps it down, about one election timeout), on the survivor, each with a --op-timeout deadline
and at the same moment: a linearizable read, a serializable read of /svc/, a put, and a
KeepAliveOnce of an instance's lease. After --outage the two members restart on
their data dirs; as soon as a leader exists the instance keys and each lease's remaining TTL are
read; at --duration (the end of the timeline; by default --outage-at + --outage + 2s) the keys
are read once more.

Reproduced when: the linearizable read fails after about the deadline (deadline −100 ms … +500 ms),
the serializable read succeeds in < 50 ms and sees every instance key, the put and the keepalive
fail within the deadline (+500 ms), every instance key is present after recovery, and every
remaining TTL is within [ttl − 5 s, ttl + 1 s] (a new leader resets leases to ttl + election
timeout). Article: 2002 ms, 1 ms and 6 keys, 2002 ms, 2003 ms, 3/3, TTLs 19, 18, 18.`,
		New: func() Config {
			return &minority{svc: defaultServiceParams(), OutageAt: 2 * time.Second, Outage: 8 * time.Second, OpTimeout: 2 * time.Second}
		},
	})
}

// minority is article 47.3.
type minority struct {
	svc                         serviceParams
	OutageAt, Outage, OpTimeout time.Duration
}

// recoveryAllowance is the time reserved after the outage for a leader
// election and the recovery reads.
const recoveryAllowance = 2 * time.Second

func (s *minority) Defaults(c *Common) {
	c.Duration = s.OutageAt + s.Outage + recoveryAllowance
}

func (s *minority) Flags(fs *flag.FlagSet) {
	s.svc.bind(fs)
	fs.DurationVar(&s.OutageAt, "outage-at", s.OutageAt, "when 2 of the 3 etcd members are SIGKILLed")
	fs.DurationVar(&s.Outage, "outage", s.Outage, "how long they stay down before restarting on their data dirs")
	fs.DurationVar(&s.OpTimeout, "op-timeout", s.OpTimeout, "deadline of each probe on the survivor")
}

func (s *minority) Validate(c Common) error {
	if err := s.svc.validate(); err != nil {
		return err
	}
	switch {
	case s.OutageAt <= 0:
		return Usagef("--outage-at (%s) must be positive", s.OutageAt)
	case s.OpTimeout <= 0:
		return Usagef("--op-timeout (%s) must be positive", s.OpTimeout)
	case s.Outage <= s.OpTimeout:
		return Usagef("--outage (%s) must be longer than --op-timeout (%s): the probes must end before the majority returns", s.Outage, s.OpTimeout)
	case c.Duration < s.OutageAt+s.Outage+recoveryAllowance:
		return Usagef("--duration (%s) must be at least --outage-at + --outage + %s (%s) to measure the recovery",
			c.Duration, recoveryAllowance, s.OutageAt+s.Outage+recoveryAllowance)
	}
	return nil
}

// probe is one timed operation on the survivor.
type probe struct {
	ok   bool
	ms   float64
	keys int
	err  string
}

func timed(f func() (int, error)) probe {
	start := time.Now()
	n, err := f()
	p := probe{ok: err == nil, ms: report.Ms(time.Since(start)), keys: n}
	if err != nil {
		p.err = err.Error()
	}
	return p
}

// minorityRun holds what one run measured.
type minorityRun struct {
	survivor                      string
	leaderlessMs                  float64
	lin, ser, put, keepalive      probe
	leaderMs                      float64
	present, endPresent, expected int
	ttls                          []float64
	marks                         []report.Mark
	timeline                      time.Duration
}

func (s *minority) Run(ctx context.Context, env *Env) (*report.Result, error) {
	r, err := startRig(ctx, env, s.svc)
	if err != nil {
		return nil, err
	}
	defer r.close()
	nodes := r.cluster.Nodes()
	surv := nodes[env.Rand.IntN(len(nodes))]
	var killed []*cluster.Node
	for _, n := range nodes {
		if n != surv {
			killed = append(killed, n)
		}
	}
	survCli, err := surv.Client()
	if err != nil {
		return nil, err
	}
	defer survCli.Close()
	allCli, err := r.cluster.Client()
	if err != nil {
		return nil, err
	}
	defer allCli.Close()
	out := &minorityRun{survivor: surv.Name, expected: s.svc.Instances, timeline: env.Duration}
	rec := report.NewRecorder(time.Now().Add(startLead))
	kill := fault.KillNodes{Nodes: killed}
	if err := clock.SleepUntil(ctx, rec.T0().Add(s.OutageAt)); err != nil {
		return nil, err
	}
	killedAt := time.Now()
	rec.MarkAt(killedAt, kill.Name())
	_ = kill.Inject(ctx)
	// A leader that lost its quorum still renews leases locally until
	// CheckQuorum steps it down (about one election timeout): probe once the
	// survivor knows it has no leader.
	if err := waitLeaderless(ctx, surv, survCli, 10*time.Second); err != nil {
		return nil, err
	}
	out.leaderlessMs = report.Ms(time.Since(killedAt))
	env.Printf("SIGKILLed %s; survivor %s without a leader after %.0f ms; probing it (deadline %s each)",
		nodeList(killed), surv.Name, out.leaderlessMs, s.OpTimeout)
	s.probe(ctx, survCli, r.group.Instances[0].Lease(), out)
	if err := clock.SleepUntil(ctx, rec.T0().Add(s.OutageAt+s.Outage)); err != nil {
		return nil, err
	}
	if err := s.recover(ctx, env, r, allCli, kill, rec, out); err != nil {
		return nil, err
	}
	if err := clock.SleepUntil(ctx, rec.T0().Add(env.Duration)); err != nil {
		return nil, err
	}
	out.endPresent = countKeys(ctx, allCli, s.OpTimeout)
	out.marks = rec.Marks()
	return s.judge(out), nil
}

// probe runs the four operations on the survivor at the same moment.
func (s *minority) probe(ctx context.Context, cli *clientv3.Client, lease clientv3.LeaseID, out *minorityRun) {
	with := func(f func(ctx context.Context) (int, error)) func() (int, error) {
		return func() (int, error) {
			c, cancel := context.WithTimeout(ctx, s.OpTimeout)
			defer cancel()
			return f(c)
		}
	}
	done := make(chan struct{}, 4)
	run := func(p *probe, f func() (int, error)) { *p = timed(f); done <- struct{}{} }
	go run(&out.lin, with(func(c context.Context) (int, error) {
		resp, err := cli.Get(c, fakeservice.Prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		return countOf(resp), err
	}))
	go run(&out.ser, with(func(c context.Context) (int, error) {
		resp, err := cli.Get(c, fakeservice.Prefix, clientv3.WithPrefix(), clientv3.WithSerializable())
		return countOf(resp), err
	}))
	go run(&out.put, with(func(c context.Context) (int, error) {
		_, err := cli.Put(c, "/probe/minority", "written on the minority")
		return 0, err
	}))
	go run(&out.keepalive, with(func(c context.Context) (int, error) {
		_, err := cli.KeepAliveOnce(c, lease)
		return 0, err
	}))
	for range 4 {
		<-done
	}
}

func countOf(resp *clientv3.GetResponse) int {
	if resp == nil {
		return 0
	}
	return int(resp.Count)
}

// recover restarts the killed members, waits for a leader and reads the
// instance keys and their leases' remaining TTLs.
func (s *minority) recover(ctx context.Context, env *Env, r *rig, cli *clientv3.Client, kill fault.KillNodes, rec *report.Recorder, out *minorityRun) error {
	rec.MarkAt(time.Now(), "restart "+nodeList(kill.Nodes))
	start := time.Now()
	if err := kill.Heal(ctx); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := r.cluster.WaitLeader(wctx); err != nil {
		return fmt.Errorf("waiting for a leader after the restart: %w", err)
	}
	out.leaderMs = report.Ms(time.Since(start))
	rec.MarkAt(time.Now(), "leader elected")
	gctx, gcancel := context.WithTimeout(ctx, s.OpTimeout)
	defer gcancel()
	resp, err := cli.Get(gctx, fakeservice.Prefix, clientv3.WithPrefix())
	if err != nil {
		return fmt.Errorf("reading instance keys after recovery: %w", err)
	}
	out.present = len(resp.Kvs)
	for _, kv := range resp.Kvs {
		ttl, err := cli.TimeToLive(gctx, clientv3.LeaseID(kv.Lease))
		if err != nil {
			return fmt.Errorf("reading the ttl of %s: %w", kv.Key, err)
		}
		out.ttls = append(out.ttls, float64(ttl.TTL))
	}
	env.Printf("majority back: leader %.0f ms after the restart; %d keys, remaining TTLs %v s", out.leaderMs, out.present, out.ttls)
	return nil
}

// waitLeaderless waits until member n reports no leader.
func waitLeaderless(ctx context.Context, n *cluster.Node, cli *clientv3.Client, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		st := n.Status(ctx, cli, 300*time.Millisecond)
		if st.Err == nil && st.Leader == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("survivor %s still reports a leader %s after losing its peers", n.Name, limit)
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(20*time.Millisecond)); err != nil {
			return err
		}
	}
}

func countKeys(ctx context.Context, cli *clientv3.Client, timeout time.Duration) int {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := cli.Get(ctx, fakeservice.Prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return -1
	}
	return int(resp.Count)
}

func nodeList(ns []*cluster.Node) string {
	return fault.KillNodes{Nodes: ns}.Name()[len("SIGKILL etcd "):]
}
