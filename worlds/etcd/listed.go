package etcd

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/etcdcli"
	"sdchaos/history"
	"sdchaos/rig"
)

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
	rig.SampleListed(ctx, rec, d, func(c context.Context) (int, error) {
		resp, err := s.cli.Get(c, s.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return 0, err
		}
		return int(resp.Count), nil
	})
	return nil
}

// Close closes the sampler's client.
func (s *listedSampler) Close() { s.cli.Close() }
