package rig

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/history"
)

// ListedEvery is how often a world samples how many instances its
// registry lists.
const ListedEvery = 100 * time.Millisecond

// listedSampler counts the instances the registry lists every ListedEvery
// for the whole run, as OpListed ops: the registry's own view, read on
// the members directly (not through the links a fault cuts); a killed
// registry shows as failed samples.
type listedSampler struct {
	cli    *clientv3.Client
	prefix string
}

// newListedSampler returns the sampler of r's instances.
func newListedSampler(r *Etcd) (*listedSampler, error) {
	eps := r.Endpoints()
	if r.Cluster != nil {
		eps = r.Cluster.Endpoints()
	}
	cli, err := etcdcli.New(eps...)
	if err != nil {
		return nil, err
	}
	return &listedSampler{cli: cli, prefix: r.Prefix()}, nil
}

// Run samples from the recorder's zero for d.
func (s *listedSampler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	end := rec.T0().Add(d)
	for at := rec.T0(); at.Before(end); at = at.Add(ListedEvery) {
		if err := clock.SleepUntil(ctx, at); err != nil {
			return nil
		}
		start := time.Now()
		c, cancel := context.WithTimeout(ctx, ListedEvery)
		resp, err := s.cli.Get(c, s.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		cancel()
		op := history.Op{Caller: "registry/listed", Kind: history.OpListed, Scheduled: rec.Offset(at), Start: rec.Offset(start),
			End: rec.Offset(time.Now()), Outcome: history.OK}
		if err != nil {
			op.Outcome, op.Err = caller.Classify(err), err.Error()
		} else {
			op.Count = int(resp.Count)
		}
		rec.Add(op)
	}
	return nil
}

// Close closes the sampler's client.
func (s *listedSampler) Close() { s.cli.Close() }
