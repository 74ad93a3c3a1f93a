package xds

import (
	"context"
	"sync"
	"time"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

// probeTTL is the lease of the members probe's registration.
const probeTTL = 10 * time.Second

// membersProbe reads the instance list (linearizable) and registers a
// probe key on a lease through every etcd member at once, each client
// bound to that member: the ops say which member answered what.
func membersProbe(c *cluster.Cluster) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "list and register through every etcd member"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			var wg sync.WaitGroup
			for _, n := range c.Nodes() {
				wg.Go(func() { probeMember(ctx, rec, n.Name, n.ClientURL()) })
			}
			wg.Wait()
			return nil
		}}
}

// probeMember lists and registers through one member; its key sits beside the endpoints'
// prefix, not under it: the control plane never serves the probe.
func probeMember(ctx context.Context, rec *history.Recorder, name, url string) {
	p, err := cluster.DialMemberProbe(url, rig.ProbeTimeout, fakeservice.GRPCTarget(Service)+"/",
		fakeservice.GRPCTarget(Service)+"-members-probe/"+name, probeTTL)
	if err != nil {
		rig.RecordProbe(rec, name, experiment.List, time.Now(), 0, err)
		return
	}
	defer p.Close()
	rig.ProbeOp(ctx, rec, name, experiment.List, p.List)
	rig.ProbeOp(ctx, rec, name, experiment.Register, p.Register)
}
