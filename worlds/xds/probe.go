package xds

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

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

// probeMember lists and registers through one member.
func probeMember(ctx context.Context, rec *history.Recorder, name, url string) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: rig.ProbeTimeout})
	if err != nil {
		rig.RecordProbe(rec, name, experiment.List, time.Now(), 0, err)
		return
	}
	defer cli.Close()
	rig.ProbeOp(ctx, rec, name, experiment.List, func(c context.Context) (int, error) {
		resp, err := cli.Get(c, fakeservice.GRPCTarget(Service)+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return 0, err
		}
		return int(resp.Count), nil
	})
	rig.ProbeOp(ctx, rec, name, experiment.Register, func(c context.Context) (int, error) {
		lease, err := cli.Grant(c, int64(probeTTL/time.Second))
		if err != nil {
			return 0, err
		}
		// Beside the endpoints' prefix, not under it: the control plane
		// never serves the probe.
		_, err = cli.Put(c, fakeservice.GRPCTarget(Service)+"-members-probe/"+name, "probe", clientv3.WithLease(lease.ID))
		return 1, err
	})
}
