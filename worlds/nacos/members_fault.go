package nacos

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

// nacosMembers is the size of the Nacos cluster a member experiment runs on.
const nacosMembers = 3

// nacosOnCluster reports whether x runs on the Nacos cluster rather than the standalone server:
// its timeline has a member fault (quorum-loss, cut-off-member, member-unreachable), a members
// probe, or packets dropped (how: drop).
func nacosOnCluster(x experiment.Experiment) bool {
	for _, s := range x.Timeline {
		if s.Probe != "" || nacosMemberFault(s.Fault) || s.NeedsPackets() {
			return true
		}
	}
	return false
}

// nacosMemberFault reports whether f acts on members of the cluster.
func nacosMemberFault(f experiment.FaultKind) bool {
	return f == experiment.QuorumLoss || f == experiment.CutOffMember || f == experiment.MemberUnreachable
}

// nacosNeedsPackets reports whether a step of x drops real packets.
func nacosNeedsPackets(x experiment.Experiment) bool {
	for _, s := range x.Timeline {
		if s.NeedsPackets() {
			return true
		}
	}
	return false
}

// nacosClusterSpec is the cluster x runs on: nacosreal's default (naming only, Distro observable,
// CDS), with a peer link per ordered pair of members when a member is cut off.
func nacosClusterSpec(env *rig.Env, x experiment.Experiment) *ClusterSpec {
	c := DefaultClusterSpec()
	c.Size, c.PeerLinks = nacosMembers, rig.HasFault(x, experiment.CutOffMember)
	c.Hosts = env.MemberHosts(nacosMembers) // in the private namespace each member on its own address (198.18.0.N)
	c.Member.KeepHome, c.Member.Logf = env.Keep, env.Printf
	return &c
}

// memberFault is the fault value of a member fault on the started cluster: quorum-loss
// SIGKILLs a majority drawn from the run's seed (started again at the heal); cut-off-member cuts
// a member drawn from the seed off from its peers (its peer links held); member-unreachable drops
// every packet between the clients and a member drawn from the seed.
func (w *nacosExpWorld) memberFault(nw *World, i int, s experiment.Step) (fault.Fault, error) {
	c := nw.Cluster()
	if c == nil {
		return nil, fmt.Errorf("%s: the world runs no cluster", s.Fault)
	}
	ms := c.Members()
	if s.Fault == experiment.MemberUnreachable {
		return &DropClients{Filter: w.filter, Members: ms[w.drawn[i] : w.drawn[i]+1], Source: nacosClientSource}, nil
	}
	if s.Fault == experiment.CutOffMember {
		m := ms[w.drawn[i]]
		return CutMember{Member: m.Name(), Links: c.PeerLinksOf(m.Name())}, nil
	}
	var names []string
	for j, m := range ms {
		if j != w.drawn[i] && len(names) < len(ms)/2+1 {
			names = append(names, m.Name())
		}
	}
	procs, err := nw.Members(names)
	if err != nil {
		return nil, err
	}
	return fault.KillServers{Servers: procs, What: "Nacos"}, nil
}

// nacosProbeService is the service the members probe registers (no caller lists it).
const nacosProbeService = nacosService + "-members-probe"

// nacosProbe asks every member, each straight at its own ports (not through a link), to list
// the instances (the client open API) and to register a probe instance (its own nacos-sdk-go
// client, which the probe then closes: the member drops the instance with its connection).
type nacosProbe struct {
	dir  string
	seq  atomic.Int64
	wg   sync.WaitGroup // the probes' clients until closed
	http *http.Client
}

// probe is the timeline's members probe on nw's cluster.
func (p *nacosProbe) probe(nw *World) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "list and register through every nacos member"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			seq := p.seq.Add(1)
			var wg sync.WaitGroup
			for _, m := range nw.Cluster().Members() {
				wg.Go(func() { p.member(ctx, rec, m, seq) })
			}
			wg.Wait()
			return nil
		}}
}

// member lists and registers through one member, each with ProbeTimeout.
func (p *nacosProbe) member(ctx context.Context, rec *history.Recorder, m *Member, seq int64) {
	src := OpenAPISource{Addr: m.Addr(), Service: nacosService, Client: p.http}
	rig.ProbeOp(ctx, rec, m.Name(), experiment.List, func(c context.Context) (int, error) {
		eps, err := src.List(c)
		return len(eps), err
	})
	o := ClientOptions{Server: m.Addr(), Dir: filepath.Join(p.dir, fmt.Sprintf("%s-%d", m.Name(), seq)),
		NotLoadCacheAtStart: true, TimeoutMs: uint64(rig.ProbeTimeout.Milliseconds())}
	rig.ProbeOp(ctx, rec, m.Name(), experiment.Register, func(c context.Context) (int, error) {
		done, err := RegisterOnce(c, o, nacosProbeService, 1)
		p.wg.Go(func() { <-done })
		return 1, err
	})
}

// close waits until every probe's client is closed (a client still starting when its probe
// timed out gives up after its server checks) and closes the list reads' connections.
func (p *nacosProbe) close() {
	p.wg.Wait()
	p.http.CloseIdleConnections()
}

// nacosMemberFaultFor is the longest member fault of x (one never healed lasts to the run's end).
func nacosMemberFaultFor(x experiment.Experiment) time.Duration {
	var longest time.Duration
	for _, s := range x.Timeline {
		if !nacosMemberFault(s.Fault) {
			continue
		}
		d := s.For.D()
		if d == 0 {
			d = x.Duration.D() - s.At.D()
		}
		longest = max(longest, d)
	}
	return longest
}
