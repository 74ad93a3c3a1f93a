package nacosarticle

import (
	"context"
	"fmt"
	"slices"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/fault"
	"sdchaos/linearize"
	"sdchaos/report"
	"sdchaos/rig"
)

// kvOpTimeout is the deadline of each key-value op in registry-jitter.
const kvOpTimeout = time.Second

// kvTraffic is the key-value traffic of registry-jitter as a probe at time
// zero: every member through its own client and proxy for d, then the
// reads of every key. It is a probe because the rig's plan runs only
// policy callers; the probe's event marks s0.
func kvTraffic(r *rig.Etcd, d time.Duration) fault.Probe {
	names := cluster.NodeNames(r.Cluster.Nodes())
	return fault.ProbeFunc{Event: report.Event{Kind: report.Probe, Targets: names,
		Label: "key-value traffic on every member (linearizability check)"}, Func: func(ctx context.Context, rec *report.Recorder) error {
		kv, err := caller.NewKV(caller.DefaultKVConfig(caller.KVMembers(names, r.Endpoints()), kvOpTimeout))
		if err != nil {
			return fmt.Errorf("starting the key-value traffic: %w", err)
		}
		defer kv.Close()
		if err := kv.Run(ctx, rec, d); err != nil {
			return err
		}
		kv.ReadFinal(ctx, rec, finalReadsWithin)
		return nil
	}}
}

// judgeJitterKV checks the key-value traffic: (a) puts and linearizable
// gets linearizable, (c) no acknowledged put lost at the end; every
// member's serializable gets are added and reported, not judged. A history
// without key-value traffic (recorded before it existed) is said so.
func judgeJitterKV(res *report.Result, h *report.History) {
	var members []string
	for _, kv := range linearize.FromOps(h.Ops) {
		if kv.Member != linearize.Final && !slices.Contains(members, kv.Member) {
			members = append(members, kv.Member)
		}
	}
	slices.Sort(members)
	j, ok := linearize.JudgeOps(h.Ops, members, linearize.DefaultTimeout)
	if !ok {
		res.Conclude("This history holds no key-value traffic (it was recorded before the traffic existed): linearizability was not checked.")
		return
	}
	j.AddTo(res, h.Events, j.LinearizableCheck(report.Says("")), j.DurableCheck(report.Says("")))
}
