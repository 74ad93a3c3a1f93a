package etcd

import (
	"context"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/version"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

// etcdVersion is the version of the etcd the harness runs.
func etcdVersion() string { return version.Version }

// etcdMembersProbe reads the instance list (a linearizable read, as
// clientv3 reads by default) and registers a probe instance (a lease and a
// put, beside the instances: etcdProbeKey) through every member at once, each bound to that member only and
// with ProbeTimeout: the ops say which member answered what.
func etcdMembersProbe(r *Etcd) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "list and register through every member"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			var wg sync.WaitGroup
			for _, n := range r.Cluster.Nodes() {
				wg.Go(func() { probeMember(ctx, rec, r, n.Name, n.ClientURL()) })
			}
			wg.Wait()
			return nil
		}}
}

// probeMember lists and registers through one member.
func probeMember(ctx context.Context, rec *history.Recorder, r *Etcd, name, url string) {
	p, err := cluster.DialMemberProbe(url, rig.ProbeTimeout, r.Prefix(), etcdProbeKey(r, name), r.Svc.TTL)
	if err != nil {
		rig.RecordProbe(rec, name, experiment.List, time.Now(), 0, err)
		return
	}
	defer p.Close()
	rig.ProbeOp(ctx, rec, name, experiment.List, p.List)
	rig.ProbeOp(ctx, rec, name, experiment.Register, p.Register)
}

// etcdProbeKey is where the members probe registers through member: beside
// the instances' prefix, not under it, so that no caller lists the probe
// as an instance (the same write path: a lease grant and a put).
func etcdProbeKey(r *Etcd, member string) string {
	return fakeservice.Prefix + r.Svc.Service + "-members-probe/" + member
}
