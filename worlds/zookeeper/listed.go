package zookeeper

import (
	"context"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/history"
	"sdchaos/rig"
)

// zkListedSampler counts the instances the ensemble lists every
// ListedEvery for the whole run, as OpListed ops: the registry's own view,
// read on the members directly (not through the links a fault cuts) by a
// client of its own session; killed members show as failed samples.
type zkListedSampler struct {
	cl      *Client
	service string
}

// newListedSampler returns the sampler of z's instances, once its client
// has a session.
func (z *ZooKeeper) newListedSampler(ctx context.Context) (*zkListedSampler, error) {
	cl, err := NewClient(z.Ensemble.Servers(), z.Ensemble.Chroot(), z.Session)
	if err != nil {
		return nil, err
	}
	z.Defer(cl.Close)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := cl.WaitSession(wctx); err != nil {
		return nil, fmt.Errorf("the registry's list sampler: %w", err)
	}
	return &zkListedSampler{cl: cl, service: z.Service}, nil
}

// Run samples from the recorder's zero for d.
func (s *zkListedSampler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	rig.SampleListed(ctx, rec, d, func(c context.Context) (int, error) { return s.cl.Count(c, DefaultBasePath, s.service) })
	return nil
}

// zkListedTraffic is the plan traffic of the registry-neutral experiments:
// the registry's list sampled for the whole run.
func zkListedTraffic(ctx context.Context, z *ZooKeeper) ([]caller.Traffic, error) {
	s, err := z.newListedSampler(ctx)
	if err != nil {
		return nil, err
	}
	return []caller.Traffic{s}, nil
}

// zkSinkWorld is the ZooKeeper world of an experiment: its instances'
// registrations are recorded once the recorder exists.
type zkSinkWorld struct {
	*ZooKeeperWorld
	sink *rig.Sink
}

// Recorder returns the world's recorder and points the sink at it.
func (w *zkSinkWorld) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	rec, d := w.ZooKeeperWorld.Recorder(ctx)
	w.sink.Set(rec)
	return rec, d
}
