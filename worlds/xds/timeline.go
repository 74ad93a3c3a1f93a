package xds

import (
	"context"
	"fmt"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/rig"
)

// Timeline turns the experiment's steps into fault values on the started
// world.
func (w *world) Timeline(ctx context.Context) (fault.Timeline, error) {
	var tl fault.Timeline
	for i, s := range w.x.Timeline {
		st := fault.Step{At: s.At.D(), For: s.For.D(), Origin: i + 1}
		var err error
		if s.Probe != "" {
			st.Probe = membersProbe(w.etcd)
		} else if st.Fault, err = w.fault(ctx, s); err != nil {
			return nil, fmt.Errorf("timeline[%d] (%s): %w", i, s.Fault, err)
		}
		tl = append(tl, st)
	}
	return tl, nil
}

// fault is the fault value of one registry-neutral step: the registry
// behind the control plane unreachable (its links to etcd blackholed, or
// every member killed), an instance crashed, etcd's quorum lost, one etcd
// member cut off its peers.
func (w *world) fault(ctx context.Context, s experiment.Step) (fault.Fault, error) {
	switch s.Fault {
	case experiment.Unreachable:
		if s.HowOf() == experiment.Kill {
			return cluster.KillMembers{Nodes: w.etcd.Nodes()}, nil
		}
		return cutControlPlane{Proxies: w.proxies}, nil
	case experiment.CrashInstance:
		ins := w.group.Instances
		return fault.CrashInstance{Instance: ins[w.env.Rand.IntN(len(ins))]}, nil
	case experiment.QuorumLoss:
		leader, err := w.etcd.WaitLeader(ctx)
		if err != nil {
			return nil, err
		}
		return cluster.KillMembers{Nodes: w.etcd.MajorityWith(leader)}, nil
	case experiment.CutOffMember:
		n, err := w.etcd.LeaderOrFollower(ctx, s.WhichOf() == experiment.Leader)
		if err != nil {
			return nil, err
		}
		return cluster.PartitionPeer{Cluster: w.etcd, Node: n}, nil
	}
	return nil, rig.Cannotf("xds cannot make %q", s.Fault)
}
