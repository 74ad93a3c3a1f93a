package rig

import (
	"context"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/zookeeper"
)

// The operations a ZooKeeper member probe makes besides experiment.List
// and experiment.Register.
const (
	// ZKWrite sets a node's data through a session pinned to the member: a
	// write the leader commits with a quorum.
	ZKWrite experiment.ProbeOp = "write"
	// ZKMode reads the member's own state (srvr): Value its mode.
	ZKMode experiment.ProbeOp = "mode"
)

// zkProbeSession is the session timeout of a probe's pinned client: the
// largest the members grant at their default bounds (20 ticks of 2 s), so
// that a fault shorter than it never expires the probe's session.
const zkProbeSession = 40 * time.Second

// zkMemberProbe asks one member, and that member alone: reads and writes on
// a session pinned to it (opened before the faults, as a connected client's
// is), registrations on a new session each (as a new instance's).
type zkMemberProbe struct {
	z      *ZooKeeper
	member *zookeeper.Member
	client *zookeeper.Client
	seq    atomic.Int64
}

// newMemberProbes opens a pinned client to every member (released at the
// world's Close) and waits for their sessions.
func (z *ZooKeeper) newMemberProbes(ctx context.Context) ([]*zkMemberProbe, error) {
	var out []*zkMemberProbe
	for _, m := range z.Ensemble.Members() {
		c, err := zookeeper.NewClient([]string{m.ClientAddr()}, z.Ensemble.Chroot(), zkProbeSession)
		if err != nil {
			return nil, err
		}
		z.Defer(c.Close)
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = c.WaitSession(wctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("probe of zookeeper %s: %w", m.Name, err)
		}
		out = append(out, &zkMemberProbe{z: z, member: m, client: c})
	}
	return out, nil
}

// list reads the instance list on the pinned session.
func (p *zkMemberProbe) list(ctx context.Context) (int, error) {
	ins, err := p.client.Instances(ctx, zookeeper.DefaultBasePath, p.z.Service)
	return len(ins), err
}

// write sets the member's probe node on the pinned session.
func (p *zkMemberProbe) write(ctx context.Context) (int, error) {
	return 1, p.client.Write(ctx, path.Join("/sdchaos-probe", p.member.Name), []byte(time.Now().UTC().Format(time.RFC3339Nano)))
}

// register registers a probe instance through the member on a new session,
// under a service of its own (the callers never list it).
func (p *zkMemberProbe) register(ctx context.Context) (int, error) {
	id := fmt.Sprintf("probe-%s-%d", p.member.Name, p.seq.Add(1))
	data, err := zookeeper.NewServiceInstance(p.z.Service+"-probe", id, "127.0.0.1", 1, time.Now()).Marshal()
	if err != nil {
		return 0, err
	}
	node := zookeeper.InstancePath(zookeeper.DefaultBasePath, p.z.Service+"-probe", id)
	return 1, zookeeper.RegisterOnce(ctx, p.member.ClientAddr(), p.z.Ensemble.Chroot(), node, data, p.z.Session)
}

// mode reads the member's own state (srvr alone) and records its mode as
// Value: failed when it does not serve.
func (p *zkMemberProbe) mode(ctx context.Context, rec *history.Recorder) {
	start := time.Now()
	mode, err := p.member.Mode(ctx)
	o := history.Op{Caller: "probe/" + p.member.Name + "/" + string(ZKMode), Kind: history.OpProbe, Via: p.member.Name, Target: string(ZKMode),
		Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(time.Now()), Value: string(mode), Outcome: history.OK}
	if !mode.Serving() {
		o.Outcome = history.Fail
		if err != nil {
			o.Err = err.Error()
		}
	}
	rec.Add(o)
}

// zkMembersProbe lists and registers through every member at once, each
// with ProbeTimeout: the ops say which member answered what.
func zkMembersProbe(ps []*zkMemberProbe) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "list and register through every zookeeper member"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			var wg sync.WaitGroup
			for _, p := range ps {
				if !p.member.Alive() && p.member.Started() {
					continue // killed: nothing to ask
				}
				wg.Go(func() {
					probeOp(ctx, rec, p.member.Name, experiment.List, p.list)
					probeOp(ctx, rec, p.member.Name, experiment.Register, p.register)
				})
			}
			wg.Wait()
			return nil
		}}
}
