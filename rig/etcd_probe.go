package rig

import (
	"context"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/caller"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
)

// etcdVersion is the version of the etcd the harness runs.
func etcdVersion() string { return version.Version }

// etcdMembersProbe reads the instance list (a linearizable read, as
// clientv3 reads by default) and registers a probe instance (a lease and a
// put) through every member at once, each bound to that member only and
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
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: ProbeTimeout})
	if err != nil {
		recordProbe(rec, name, experiment.List, time.Now(), 0, err)
		return
	}
	defer cli.Close()
	probeOp(ctx, rec, name, experiment.List, func(c context.Context) (int, error) {
		resp, err := cli.Get(c, r.Prefix(), clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return 0, err
		}
		return int(resp.Count), nil
	})
	probeOp(ctx, rec, name, experiment.Register, func(c context.Context) (int, error) {
		lease, err := cli.Grant(c, int64(r.Svc.TTL/time.Second))
		if err != nil {
			return 0, err
		}
		_, err = cli.Put(c, r.Prefix()+"probe-"+name, "probe", clientv3.WithLease(lease.ID))
		return 1, err
	})
}

// probeOp runs one probe operation with ProbeTimeout and records it.
func probeOp(ctx context.Context, rec *history.Recorder, member string, op experiment.ProbeOp, f func(context.Context) (int, error)) {
	start := time.Now()
	c, cancel := context.WithTimeout(ctx, ProbeTimeout)
	n, err := f(c)
	cancel()
	recordProbe(rec, member, op, start, n, err)
}

// recordProbe records a members probe's operation: Kind OpProbe, Via the
// member, Target the operation, Count what it counted.
func recordProbe(rec *history.Recorder, member string, op experiment.ProbeOp, start time.Time, n int, err error) {
	o := history.Op{Caller: "probe/" + member + "/" + string(op), Kind: history.OpProbe, Via: member, Target: string(op),
		Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(time.Now()), Count: n, Outcome: history.OK}
	if err != nil {
		o.Outcome, o.Err = caller.Classify(err), err.Error()
	}
	rec.Add(o)
}
