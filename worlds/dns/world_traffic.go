package dns

import (
	"context"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/caller"
	"sdchaos/etcdcli"
	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/rig"
)

// Traffic builds the policy callers (each refreshing through Go's resolver
// via the relay to the server without a cache, primed), the real clients
// and the sampler of the registry's own list.
func (w *World) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	phase := time.Duration(w.env.Rand.Int64N(int64(rig.DefaultRefresh)))
	var ts []caller.Traffic
	for _, c := range w.x.Callers {
		var t caller.Traffic
		var err error
		switch c.Kind {
		case experiment.PolicyCaller:
			t, err = w.policyCaller(ctx, c, phase)
		case experiment.RealClient:
			t, err = w.realClient(ctx, c)
		default:
			err = rig.Cannotf("dns runs no %s caller", c.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("dns: caller %s: %w", c.Name, err)
		}
		ts = append(ts, t)
	}
	s, err := w.listedSampler()
	if err != nil {
		return nil, err
	}
	return append(ts, s), nil
}

// policyCaller is a policy caller whose refresh is Go's resolver: the SRV
// records, then each target's A record, through the relay to plain.
func (w *World) policyCaller(ctx context.Context, c experiment.Caller, phase time.Duration) (caller.Traffic, error) {
	cfg := rig.PolicyCaller(c, phase)
	cfg.Log = w.env.Log
	src := NewGoResolver(ResolverConfig{Name: c.Name, Server: w.relays[plainName].Addr(), Host: w.Host(), QType: TypeSRV, Timeout: lookupTimeout})
	pc := caller.New(cfg, src)
	w.onClose(pc.Close)
	if err := pc.Prime(ctx); err != nil {
		return nil, fmt.Errorf("priming through DNS: %w", err)
	}
	return pc, nil
}

// realClient is one of the world's real clients (Clients).
func (w *World) realClient(ctx context.Context, c experiment.Caller) (caller.Traffic, error) {
	rate := rig.RateOf(c)
	switch c.Client {
	case ClientGo, ClientGoStale:
		server := plainName
		if c.Client == ClientGoStale {
			server = staleName
		}
		return NewGoResolver(ResolverConfig{Name: c.Name, Rate: rate, Server: w.relays[server].Addr(), Host: w.Host(),
			QType: TypeSRV, Timeout: lookupTimeout}), nil
	case ClientGRPC:
		server := plainName
		if w.Local != nil {
			server = localName
		}
		g, err := NewGRPCCaller(GRPCConfig{Name: c.Name, Rate: rate, Server: w.relays[server].Addr(), Host: w.Host(),
			Port: w.Insts.List[0].GRPCPort, CallTimeout: rig.CallTimeout})
		if err != nil {
			return nil, err
		}
		w.onClose(g.Close)
		if err := g.Prime(ctx); err != nil {
			return nil, err
		}
		return g, nil
	}
	return nil, rig.Cannotf("dns has no client %q", c.Client)
}

// listedSampler counts the records under the instances' prefix on etcd
// itself (not through DNS): the registry's own list.
func (w *World) listedSampler() (caller.Traffic, error) {
	cli, err := etcdcli.New(w.Etcd.Endpoints()...)
	if err != nil {
		return nil, fmt.Errorf("dns: the listed sampler's etcd client: %w", err)
	}
	w.onClose(func() { _ = cli.Close() })
	prefix := w.recordPrefix()
	return trafficFunc(func(ctx context.Context, rec *history.Recorder, d time.Duration) error {
		rig.SampleListed(ctx, rec, d, func(c context.Context) (int, error) {
			resp, err := cli.Get(c, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
			if err != nil {
				return 0, err
			}
			return int(resp.Count), nil
		})
		return nil
	}), nil
}

// trafficFunc is a function as caller.Traffic.
type trafficFunc func(ctx context.Context, rec *history.Recorder, d time.Duration) error

// Run calls f.
func (f trafficFunc) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	return f(ctx, rec, d)
}

// Recorder checks that the server without a cache lists every instance
// (asked directly, not through a relay) and returns the recorder with that
// check in it; the traffic runs for the experiment's duration.
func (w *World) Recorder(ctx context.Context) (*history.Recorder, time.Duration) {
	start := time.Now()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	n, err := Listed(c, w.Plain.Addr(), w.Host())
	cancel()
	end := time.Now()
	rec := rig.NewRecorder(w.env, 0)
	w.sink.Set(rec)
	if err == nil && n != len(w.Insts.List) {
		err = fmt.Errorf("CoreDNS %s lists %d of %d instances", plainName, n, len(w.Insts.List))
	}
	op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(end),
		Count: n, Value: strconv.Itoa(len(w.Insts.List)), Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = history.Fail, err.Error()
	}
	rec.Add(op)
	return rec, w.env.Duration
}

// Finish keeps no data of its own: the measured timeline is the run's.
func (w *World) Finish(context.Context, *history.Recorder) (time.Duration, any, error) {
	return w.env.Duration, nil, nil
}
