package dns

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

// Timeline turns the experiment's steps into fault values on the started
// world.
func (w *World) Timeline(ctx context.Context) (fault.Timeline, error) {
	var tl fault.Timeline
	for i, s := range w.x.Timeline {
		st := fault.Step{At: s.At.D(), For: s.For.D(), Origin: i + 1}
		if s.Probe != "" {
			st.Probe = w.membersProbe()
		} else {
			f, err := w.faultOf(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("timeline[%d] (%s): %w", i, s.Fault, err)
			}
			st.Fault = f
		}
		tl = append(tl, st)
	}
	return tl, nil
}

// faultOf is the fault value of one registry-neutral step.
func (w *World) faultOf(ctx context.Context, s experiment.Step) (fault.Fault, error) {
	switch s.Fault {
	case experiment.Unreachable:
		if s.HowOf() == experiment.Kill {
			return w.killDNS(), nil
		}
		return BlackholeDNS{Relays: w.Relays()}, nil
	case experiment.CrashInstance:
		return CrashDNSInstance{Instance: w.Insts.List[w.env.Rand.IntN(len(w.Insts.List))]}, nil
	case experiment.QuorumLoss:
		return w.quorumLoss(ctx)
	case experiment.CutOffMember:
		n, err := w.Etcd.LeaderOrFollower(ctx, s.WhichOf() == experiment.Leader)
		if err != nil {
			return nil, fmt.Errorf("finding the member to cut off: %w", err)
		}
		return cluster.PartitionPeer{Cluster: w.Etcd, Node: n}, nil
	}
	return nil, rig.Cannotf("dns cannot make %q", s.Fault)
}

// quorumLoss kills a majority of etcd's members, the leader among them.
func (w *World) quorumLoss(ctx context.Context) (fault.Fault, error) {
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	leader, err := w.Etcd.WaitLeader(c)
	if err != nil {
		return nil, fmt.Errorf("finding etcd's leader: %w", err)
	}
	return cluster.KillMembers{Nodes: w.Etcd.MajorityWith(leader)}, nil
}

// membersProbe lists the records (a linearizable read, as the etcd plugin
// reads) and registers a probe record (a lease and a put, beside the
// instances' prefix) through every member at once, each bound to that
// member only.
func (w *World) membersProbe() fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "list and register through every etcd member"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			var wg sync.WaitGroup
			for _, n := range w.Etcd.Nodes() {
				wg.Go(func() { w.probeMember(ctx, rec, n) })
			}
			wg.Wait()
			return nil
		}}
}

// probeMember lists and registers through one member.
func (w *World) probeMember(ctx context.Context, rec *history.Recorder, n *cluster.Node) {
	p, err := cluster.DialMemberProbe(n.ClientURL(), rig.ProbeTimeout, w.recordPrefix(),
		RecordKey(DefaultPath, DefaultZone, "members-probe", n.Name), w.opts.Service.TTL)
	if err != nil {
		rig.RecordProbe(rec, n.Name, experiment.List, time.Now(), 0, err)
		return
	}
	defer p.Close()
	rig.ProbeOp(ctx, rec, n.Name, experiment.List, p.List)
	rig.ProbeOp(ctx, rec, n.Name, experiment.Register, p.Register)
}
