package nacosarticle

import (
	"context"
	"fmt"
	"slices"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/history"
	"sdchaos/linearize"
	"sdchaos/report"
	"sdchaos/rig"
)

// kvOpTimeout is the deadline of each key-value op in registry-jitter.
const kvOpTimeout = time.Second

// kvTraffic is the key-value traffic of registry-jitter, beside the
// callers: every member through its own client and proxy for the run, then
// the reads of every key.
func kvTraffic(r *rig.Etcd) ([]caller.Traffic, func(), error) {
	names := cluster.NodeNames(r.Cluster.Nodes())
	kv, err := caller.NewKV(caller.DefaultKVConfig(caller.KVMembers(names, r.Endpoints()), kvOpTimeout))
	if err != nil {
		return nil, nil, fmt.Errorf("starting the key-value traffic: %w", err)
	}
	return []caller.Traffic{kvThenRead{kv}}, kv.Close, nil
}

// kvThenRead runs the key-value traffic, then reads every key through
// every member once the run is over.
type kvThenRead struct{ kv *caller.KV }

// Run runs the traffic for d, then the final reads.
func (t kvThenRead) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	if err := t.kv.Run(ctx, rec, d); err != nil {
		return err
	}
	t.kv.ReadFinal(ctx, rec, finalReadsWithin)
	return nil
}

// judgeJitterKV checks the key-value traffic: (a) puts and linearizable
// gets linearizable, (c) no acknowledged put lost at the end; every
// member's serializable gets are added and reported, not judged. A history
// without key-value traffic (recorded before it existed) is said so.
func judgeJitterKV(res *report.Result, h *history.History) {
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
