package eureka

import (
	"context"
	"fmt"
	"sync"

	"sdchaos/caller"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/ports"
	"sdchaos/rig"
	"sdchaos/worlds/eureka/eurekareal"
)

// fault is the fault value of one registry-neutral step on real Eureka.
func (w *eurekaNeutral) fault(s experiment.Step) (fault.Fault, error) {
	servers := w.servers()
	switch s.Fault {
	case experiment.Unreachable:
		if s.HowOf() == experiment.Kill {
			return KillEurekaServers{Servers: restartable(servers)}, nil
		}
		b := BlackholeEurekaClients{}
		for _, rs := range servers {
			b.Servers, b.Proxies = append(b.Servers, rs.Name()), append(b.Proxies, rs.proxy)
		}
		return b, nil
	case experiment.CrashInstance:
		ws := w.cl.Workers
		return CrashEurekaWorkers{Workers: []WorkerTarget{ws[w.env.Rand.IntN(len(ws))]}}, nil
	case experiment.QuorumLoss:
		keep := w.env.Rand.IntN(len(servers))
		var kill []*realServer
		for i, rs := range servers {
			if i != keep {
				kill = append(kill, rs)
			}
		}
		return KillEurekaServers{Servers: restartable(kill)}, nil
	case experiment.CutOffMember:
		rs := servers[w.env.Rand.IntN(len(servers))]
		return CutOffEurekaServer{Server: rs.Name(), Links: peerLinksOf(rs.peers, rs.Name())}, nil
	}
	return nil, rig.Cannotf("eureka cannot make %q", s.Fault)
}

// servers returns the cluster's real servers.
func (w *eurekaNeutral) servers() []*realServer {
	out := make([]*realServer, len(w.cl.Servers))
	for i, s := range w.cl.Servers {
		out[i] = s.(*realServer)
	}
	return out
}

func restartable(ss []*realServer) []RestartableEurekaServer {
	out := make([]RestartableEurekaServer, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// probeApp is the application of the members probe's registrations (not
// the instances' app: no caller lists it).
const probeApp = "SDCHAOS-MEMBERS-PROBE"

// membersProbe reads the instance list (GET /eureka/apps/WORKER) and
// registers a probe instance (POST /eureka/apps/SDCHAOS-MEMBERS-PROBE)
// through every server at once, each straight to that server (not through
// the client proxies) and with ProbeTimeout; the probe instance is
// cancelled afterwards, so that it does not raise the servers' renewal
// threshold. The ops say which server answered what.
func (w *eurekaNeutral) membersProbe() fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "list and register through every eureka server"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			seq := w.probes.Add(1)
			var wg sync.WaitGroup
			for _, s := range w.servers() {
				wg.Go(func() { w.probeServer(ctx, rec, s, seq) })
			}
			wg.Wait()
			return nil
		}}
}

// probeServer lists and registers through one server.
func (w *eurekaNeutral) probeServer(ctx context.Context, rec *history.Recorder, s *realServer, seq int64) {
	src := caller.NewEurekaSource([]string{s.ServiceURL}, eurekaApp)
	defer src.Close()
	rig.ProbeOp(ctx, rec, s.Name(), experiment.List, func(c context.Context) (int, error) {
		eps, err := src.List(c)
		return len(eps), err
	})
	id := fmt.Sprintf("probe-%s-%d", s.Name(), seq)
	reg, err := eurekareal.NewRegistrar(probeApp, id, ports.Addr(1), []string{s.ServiceURL}, w.props)
	if err != nil {
		rig.ProbeOp(ctx, rec, s.Name(), experiment.Register, func(context.Context) (int, error) { return 0, err })
		return
	}
	rig.ProbeOp(ctx, rec, s.Name(), experiment.Register, func(c context.Context) (int, error) { return 1, reg.Register(c) })
	cctx, cancel := context.WithTimeout(ctx, rig.ProbeTimeout)
	defer cancel()
	_ = reg.Cancel(cctx) // best effort: a server that did not take it has nothing to cancel
}

var _ RestartableEurekaServer = (*realServer)(nil)
