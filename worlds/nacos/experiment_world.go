package nacos

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/netns"
	"sdchaos/ports"
	"sdchaos/rig"
)

// nacosService is the service the experiment's instances register.
const nacosService = "svc"

// World builds x's Nacos world: the server (main port --port-base + 1000) or, for a member
// experiment, the cluster (main ports from there, 2 apart), x's instances and real clients in a
// nacosreal.World, the policy callers each behind a link of their own, the server's (the first
// member's) list read every ListedEvery, and a timeline of fault values on the started world.
func (r nacosRegistry) World(env *rig.Env, x experiment.Experiment) (rig.World, error) {
	if err := r.Can(x); err != nil {
		return nil, err
	}
	var filter *netns.Filter
	if nacosNeedsPackets(x) {
		if env.Net != rig.Private {
			return nil, rig.Cannotf("nacos: how: drop and member-unreachable drop real packets: they need --net private (this run uses --net %s)", env.Net)
		}
		f, err := env.Filter()
		if err != nil {
			return nil, err
		}
		filter = f
	}
	sup, err := env.Supervisor()
	if err != nil {
		return nil, err
	}
	main := env.PortBase - RaftOffset
	first := main + 2 // main+1000 and main+1001 are the server's gRPC ports
	var cluster *ClusterSpec
	if nacosOnCluster(x) {
		cluster = nacosClusterSpec(env, x)
		first = main + PortSpan(cluster.Size) // the members' main ports and the ones between
	}
	links := ports.New(first, "--port-base")
	w := &nacosExpWorld{x: x, env: env, links: links, phase: env.CallerPhase(), drawn: map[int]int{}, filter: filter}
	if env.Net == rig.Private {
		w.source = nacosClientSource
	}
	if x.Instances.Spread > 0 { // each instance's link healed at its own seeded delay
		draws := rig.NewDraws(env, x.Instances.Spread.D())
		w.delays = make([]time.Duration, x.Instances.Count)
		for i := range w.delays {
			w.delays[i] = draws.Next()
		}
	}
	for i, s := range x.Timeline {
		switch s.Fault {
		case experiment.CrashInstance:
			w.drawn[i] = env.Rand.IntN(x.Instances.Count) // the instance step i crashes, drawn from the run's seed
		case experiment.QuorumLoss, experiment.CutOffMember, experiment.MemberUnreachable:
			w.drawn[i] = env.Rand.IntN(nacosMembers) // the member spared (quorum-loss), cut off or lost, drawn from the run's seed
		}
	}
	if cluster != nil {
		dir, err := sup.TempDir("sdchaos-nacos-probes-*", env.Keep)
		if err != nil {
			return nil, fmt.Errorf("the members probe's directory: %w", err)
		}
		w.probes = &nacosProbe{dir: dir, http: &http.Client{Transport: &http.Transport{}}}
		w.pick = newMemberPick(env)
	}
	sp := DefaultServerSpec()
	sp.KeepHome, sp.Logf = env.Keep, env.Printf
	ws := WorldSpec{Server: sp, Cluster: cluster, ServerPorts: ports.New(main, "--port-base"), LinkPorts: links, EndpointPorts: links,
		ClientSource: w.source, Service: nacosService, Instances: x.Instances.Count, Parallel: 1, CallTimeout: rig.CallTimeout, JVMStart: CallerPatience,
		Settle: nacosSettle, Sample: time.Second, Duration: x.Duration.D(), Ready: true, Timeline: w.timeline,
		NewRecorder: (&rig.SharedRecorder{Env: env}).New, Describe: env.Describe, Keep: env.Keep}
	for _, c := range x.Callers {
		if c.Kind == experiment.RealClient {
			ws.Callers, ws.Rate = append(ws.Callers, c.Client), rig.RateOf(c)
		}
	}
	if !env.Quiet {
		ws.Logf = env.Printf
	}
	if w.World, err = NewWorld(sup, ws); err != nil {
		return nil, err
	}
	env.Duration = x.Duration.D()
	return w, nil
}

// nacosExpWorld is the Nacos world of an experiment: the nacosreal.World with the policy
// callers (each reading the client open API through its own link, to every member on the
// cluster) and the reading of the
// server's list as OpListed ops.
type nacosExpWorld struct {
	*World
	x     experiment.Experiment
	links *ports.Allocator
	phase time.Duration
	// drawn maps a timeline step to what it acts on, drawn from the run's seed: the instance a
	// crash-instance crashes, the member a quorum-loss spares or a cut-off-member cuts.
	drawn map[int]int
	// delays, for a spread experiment, are each instance's heal delay after a registry-unreachable
	// step's end, drawn from the run's seed: nacos-sdk-go re-registers on its own reconnect, so an
	// instance comes back later when its link returns later.
	delays []time.Duration
	policy []nacosPolicyCaller
	exec   []nacosExecCaller // the users' clients, each through its own link
	env    *rig.Env
	probes *nacosProbe // the members probe, on the cluster
	// pick draws the member each policy caller's read tries first, on the cluster.
	pick *memberPick
	// filter is the run's packet filter when a step drops packets; source the address the
	// clients' links dial the members from in the private namespace (invalid on loopback).
	filter *netns.Filter
	source netip.Addr
}

// nacosClientSource is the address every client's link dials the members from in the private
// namespace (127.0.0.0/8 is local there, as on a host): the packet faults select the clients'
// traffic by it, and the harness's own reads of the members (from the members' addresses, the
// kernel's choice on their local route) pass.
var nacosClientSource = netip.MustParseAddr("127.0.0.100")

// nacosPolicyCaller is a policy caller, its link and the HTTP client of its reads.
type nacosPolicyCaller struct {
	cfg    caller.Config
	link   *Link
	client *http.Client
	caller *caller.Caller // once Traffic made it
}

// Start starts the world, then a link for each policy caller and each user's client.
func (w *nacosExpWorld) Start(ctx context.Context) error {
	if err := w.World.Start(ctx); err != nil {
		return err
	}
	for _, c := range w.x.Callers {
		if c.Kind != experiment.PolicyCaller {
			continue
		}
		l, err := w.policyLink(c.Name)
		if err != nil {
			return fmt.Errorf("policy caller %s: %w", c.Name, err)
		}
		w.policy = append(w.policy, nacosPolicyCaller{cfg: rig.PolicyCaller(c, w.phase), link: l,
			client: &http.Client{Transport: &http.Transport{}}})
	}
	return w.startExec()
}

// policyLink opens a policy caller's link: to the server, or — on the cluster, as every real
// client's — to every member, the caller's reads trying them in turn (OpenAPISource).
func (w *nacosExpWorld) policyLink(name string) (*Link, error) {
	if c := w.Cluster(); c != nil {
		return NewClusterLinkFrom(w.links, c.Members(), name, w.source)
	}
	return NewLinkFrom(w.links, w.Server(), name, w.source)
}

// Traffic is the world's (its real clients, its own reading of the server) with the policy
// callers, each with its list filled by one read, the users' clients (rig.ExecClient) and the
// OpListed reading.
func (w *nacosExpWorld) Traffic(ctx context.Context) ([]caller.Traffic, error) {
	ts, err := w.World.Traffic(ctx)
	if err != nil {
		return nil, err
	}
	for i, p := range w.policy {
		src := OpenAPISource{Addr: p.link.Addr(), Service: nacosService, Client: p.client}
		if w.pick != nil {
			src.Start = w.pick.Start
		}
		c := caller.New(p.cfg, src)
		if err := c.Prime(ctx); err != nil { // its list filled before time zero, as the etcd rig's callers
			return nil, fmt.Errorf("policy caller %s: %w", p.cfg.Name, err)
		}
		w.policy[i].caller = c
		ts = append(ts, c)
	}
	for _, e := range w.exec {
		ts = append(ts, rig.NewExecClient(w.env, e.cfg))
	}
	return append(ts, &nacosListed{server: w.Server()}), nil
}

// timeline turns x's steps into fault values on the started world: registry-unreachable
// blackholes every client's link (the instances', the real clients', the policy callers') or,
// how: drop, drops every packet between the links and every member's client ports,
// crash-instance crashes the instance drawn for it, the member faults act on the cluster's
// members (memberFault), and a members probe asks every member.
func (w *nacosExpWorld) timeline(nw *World) (fault.Timeline, error) {
	var tl fault.Timeline
	for i, s := range w.x.Timeline {
		st := fault.Step{At: s.At.D(), For: s.For.D(), Origin: i + 1}
		if s.Probe != "" {
			st.Probe = w.probes.probe(nw)
			tl = append(tl, st)
			continue
		}
		switch s.Fault {
		case experiment.Unreachable:
			if s.HowOf() == experiment.Drop {
				st.Fault = &DropClients{Filter: w.filter, Members: nw.Cluster().Members(), Source: w.source}
				break
			}
			tl = append(tl, w.unreachable(nw, st)...)
			continue
		case experiment.CrashInstance:
			st.Fault = fault.CrashTarget{Instance: nw.Crashables()[w.drawn[i]]}
		case experiment.QuorumLoss, experiment.CutOffMember, experiment.MemberUnreachable:
			f, err := w.memberFault(nw, i, s)
			if err != nil {
				return nil, fmt.Errorf("timeline[%d] (%s): %w", i, s.Fault, err)
			}
			st.Fault = f
		default:
			return nil, rig.Cannotf("nacos cannot make %q", s.Fault)
		}
		tl = append(tl, st)
	}
	return tl, nil
}

// unreachable blackholes every client's link for st: at once, or — for a spread experiment
// with a heal — the callers' links for st.For and each instance's link for st.For plus its
// seeded delay (a staggered heal, one step per instance, as nacos-storm's jitter).
func (w *nacosExpWorld) unreachable(nw *World, st fault.Step) fault.Timeline {
	others := nw.CallerLinks()
	for _, p := range w.policy {
		others = append(others, p.link)
	}
	for _, e := range w.exec {
		others = append(others, e.link)
	}
	if w.delays == nil || st.For <= 0 {
		st.Fault = fault.BlackholeLinks{Links: append(nw.InstanceLinks(), others...)}
		return fault.Timeline{st}
	}
	tl := fault.Timeline{}
	if len(others) > 0 {
		st.Fault = fault.BlackholeLinks{Links: others}
		tl = append(tl, st)
	}
	for i, l := range nw.InstanceLinks() {
		s := st
		s.For += w.delays[i]
		s.Fault = fault.BlackholeLinks{Links: []fault.Link{l}}
		tl = append(tl, s)
	}
	return tl
}

// Close closes the world, then the policy callers' links and connections and the members
// probe's clients.
func (w *nacosExpWorld) Close() {
	w.World.Close()
	if w.probes != nil {
		w.probes.close()
	}
	for _, p := range w.policy {
		p.link.Close()
		p.client.CloseIdleConnections()
		if p.caller != nil {
			p.caller.Close()
		}
	}
	for _, e := range w.exec {
		e.link.Close()
	}
}

// nacosListed counts the instances the server lists every ListedEvery for the whole run, as
// OpListed ops: the server's own view through its admin API, not through a link a fault cuts.
type nacosListed struct {
	server *Server
}

// Run samples from the recorder's zero for d.
func (s *nacosListed) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	end := rec.T0().Add(d)
	for at := rec.T0(); at.Before(end); at = at.Add(rig.ListedEvery) {
		if err := clock.SleepUntil(ctx, at); err != nil {
			return nil
		}
		start := time.Now()
		c, cancel := context.WithTimeout(ctx, rig.ListedEvery)
		list, err := s.server.Instances(c, nacosService)
		cancel()
		op := history.Op{Caller: "registry/listed", Kind: history.OpListed, Scheduled: rec.Offset(at), Start: rec.Offset(start),
			End: rec.Offset(time.Now()), Outcome: history.OK, Count: len(list)}
		if err != nil {
			op.Outcome, op.Err, op.Count = caller.Classify(err), err.Error(), 0
		}
		rec.Add(op)
	}
	return nil
}
