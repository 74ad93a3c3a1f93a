package nacosarticle

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
)

// partitionProbes probe both sides of the partition and the healed member.
type partitionProbes struct {
	s              *minorityPartition
	r              *etcd.Etcd
	iso            *cluster.Node
	majority       []*cluster.Node
	isoCli, majCli *clientv3.Client
}

func newPartitionProbes(s *minorityPartition, r *etcd.Etcd, iso *cluster.Node, majority []*cluster.Node) (*partitionProbes, error) {
	isoCli, err := iso.Client()
	if err != nil {
		return nil, err
	}
	majCli, err := cluster.NewClient(cluster.ClientURLs(majority)...)
	if err != nil {
		isoCli.Close()
		return nil, err
	}
	return &partitionProbes{s: s, r: r, iso: iso, majority: majority, isoCli: isoCli, majCli: majCli}, nil
}

func (p *partitionProbes) close() { p.isoCli.Close(); p.majCli.Close() }

// eventWait bounds a probe's wait for the fault step it follows.
const eventWait = 10 * time.Second

// waitEvent waits until the recorder holds an event of kind in phase (the
// timeline records a fault once it took effect), so a probe scheduled with
// its fault starts after it.
func waitEvent(ctx context.Context, rec *history.Recorder, kind history.EventKind, phase history.Phase) error {
	deadline := time.Now().Add(eventWait)
	for {
		if _, ok := rec.Events().First(kind, phase); ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s %s event within %s", kind, phase, eventWait)
		}
		if err := clock.SleepUntil(ctx, time.Now().Add(5*time.Millisecond)); err != nil {
			return err
		}
	}
}

// during waits for the cut, then probes the majority (leader, put,
// keepalive) and, once the new key is written, the isolated member.
func (p *partitionProbes) during() fault.Probe {
	targets := append([]string{p.iso.Name}, cluster.NodeNames(p.majority)...)
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Targets: targets,
		Label: "probe the majority, then the isolated " + p.iso.Name}, Func: func(ctx context.Context, rec *history.Recorder) error {
		if err := waitEvent(ctx, rec, p.s.cutKind(), history.Inject); err != nil {
			return err
		}
		p.probeMajority(ctx, rec)
		p.probeIsolated(ctx, rec)
		return nil
	}}
}

// majorityElection bounds the wait for the majority's leader: two election
// timeouts (randomized up to 2×) and a second for the status polls.
func majorityElection() time.Duration {
	return 2*time.Duration(cluster.DefaultConfig().ElectionMs)*time.Millisecond + time.Second
}

func (p *partitionProbes) probeMajority(ctx context.Context, rec *history.Recorder) {
	names := strings.Join(cluster.NodeNames(p.majority), ",")
	rig.Op(ctx, rec, opMajLeader, names, majorityElection(), func(c context.Context) (int, string, error) {
		l, err := p.r.Cluster.WaitLeader(c, p.majority...)
		if err != nil {
			return 0, "", err
		}
		return 0, l.Name, nil
	})
	rig.Op(ctx, rec, opMajPut, names, p.s.OpTimeout, func(c context.Context) (int, string, error) {
		_, err := p.majCli.Put(c, probeKey, "v")
		return 0, "", err
	})
	lease := p.r.Group.Instances[0].Lease()
	rig.Op(ctx, rec, opMajKeepalive, names, p.s.OpTimeout, func(c context.Context) (int, string, error) {
		_, err := p.majCli.KeepAliveOnce(c, lease)
		return 0, "", err
	})
}

// probeIsolated runs the three probes on the isolated member at once.
func (p *partitionProbes) probeIsolated(ctx context.Context, rec *history.Recorder) {
	read := func(opts ...clientv3.OpOption) func(context.Context) (int, string, error) {
		return func(c context.Context) (int, string, error) {
			resp, err := p.isoCli.Get(c, probeKey, opts...)
			if err != nil {
				return 0, "", err
			}
			return len(resp.Kvs), "", nil
		}
	}
	ops := map[string]func(context.Context) (int, string, error){
		opIsoSerRead: read(clientv3.WithSerializable()),
		opIsoLinRead: read(),
		opIsoPut: func(c context.Context) (int, string, error) {
			_, err := p.isoCli.Put(c, "/probe/written-on-the-isolated-member", "v")
			return 0, "", err
		},
	}
	var wg sync.WaitGroup
	for name, f := range ops {
		wg.Add(1)
		go func() { defer wg.Done(); rig.Op(ctx, rec, name, p.iso.Name, p.s.OpTimeout, f) }()
	}
	wg.Wait()
}

// healed waits for the mend, then polls the isolated member until it
// serves the new key (at most until end, the timeline's length).
func (p *partitionProbes) healed(end time.Duration) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Targets: []string{p.iso.Name},
		Label: "wait until " + p.iso.Name + " serves the new key"}, Func: func(ctx context.Context, rec *history.Recorder) error {
		if err := waitEvent(ctx, rec, p.s.cutKind(), history.Heal); err != nil {
			return err
		}
		deadline := rec.T0().Add(end)
		rig.Op(ctx, rec, opCaughtUp, p.iso.Name, time.Until(deadline), func(c context.Context) (int, string, error) {
			if ok, _ := cluster.WaitForKey(c, p.isoCli, probeKey, deadline); !ok {
				return 0, "", fmt.Errorf("%s still does not serve %s", p.iso.Name, probeKey)
			}
			return 1, "", nil
		})
		return nil
	}}
}
