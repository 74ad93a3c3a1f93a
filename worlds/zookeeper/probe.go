package zookeeper

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
	"sdchaos/rig"
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

// zkMemberProbe asks one member, and that member alone: reads on one
// session pinned to it and writes on another (opened before the faults, as
// connected clients' are: ZooKeeper answers a session's requests in order,
// so a read queued behind a write waiting for the leader would wait too),
// registrations on a new session each (as a new instance's).
type zkMemberProbe struct {
	z              *ZooKeeper
	member         *Member
	reader, writer *Client
	seq            atomic.Int64
}

// newMemberProbes opens a reader and a writer pinned to every member
// (released at the world's Close) and waits for their sessions.
func (z *ZooKeeper) newMemberProbes(ctx context.Context) ([]*zkMemberProbe, error) {
	var out []*zkMemberProbe
	for _, m := range z.Ensemble.Members() {
		p := &zkMemberProbe{z: z, member: m}
		for _, c := range []**Client{&p.reader, &p.writer} {
			cl, err := z.pinnedClient(ctx, m)
			if err != nil {
				return nil, err
			}
			*c = cl
		}
		out = append(out, p)
	}
	return out, nil
}

// pinnedClient opens a client of member m alone and waits for its session.
func (z *ZooKeeper) pinnedClient(ctx context.Context, m *Member) (*Client, error) {
	c, err := NewClient([]string{m.ClientAddr()}, z.Ensemble.Chroot(), zkProbeSession)
	if err != nil {
		return nil, err
	}
	z.Defer(c.Close)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.WaitSession(wctx); err != nil {
		return nil, fmt.Errorf("probe of zookeeper %s: %w", m.Name, err)
	}
	return c, nil
}

// list reads the instance list on the pinned reader's session.
func (p *zkMemberProbe) list(ctx context.Context) (int, error) {
	ins, err := p.reader.Instances(ctx, DefaultBasePath, p.z.Service)
	return len(ins), err
}

// write sets the member's probe node on the pinned writer's session.
func (p *zkMemberProbe) write(ctx context.Context) (int, error) {
	return 1, p.writer.Write(ctx, path.Join("/sdchaos-probe", p.member.Name), []byte(time.Now().UTC().Format(time.RFC3339Nano)))
}

// register registers a probe instance through the member on a new session,
// under a service of its own (the callers never list it).
func (p *zkMemberProbe) register(ctx context.Context) (int, error) {
	id := fmt.Sprintf("probe-%s-%d", p.member.Name, p.seq.Add(1))
	data, err := NewServiceInstance(p.z.Service+"-probe", id, "127.0.0.1", 1, time.Now()).Marshal()
	if err != nil {
		return 0, err
	}
	node := InstancePath(DefaultBasePath, p.z.Service+"-probe", id)
	return 1, RegisterOnce(ctx, p.member.ClientAddr(), p.z.Ensemble.Chroot(), node, data, p.z.Session)
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
					rig.ProbeOp(ctx, rec, p.member.Name, experiment.List, p.list)
					rig.ProbeOp(ctx, rec, p.member.Name, experiment.Register, p.register)
				})
			}
			wg.Wait()
			return nil
		}}
}
