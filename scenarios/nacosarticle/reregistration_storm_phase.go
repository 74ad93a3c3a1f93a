package nacosarticle

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/cluster"
	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/storm"
	"sdchaos/worlds/etcd"
)

// stormRecord is what a storm run recorded beyond its ops and events.
type stormRecord struct {
	// T0 is the recorder's time zero (Unix ns): the members' samples carry
	// Unix times, the events offsets from T0.
	T0 int64 `json:"t0_unix_ns"`
	// Settle bounds each re-registration (--duration).
	Settle time.Duration `json:"settle_ns"`
	Phases []stormPhase  `json:"phases"`
}

// stormPhase is one strategy's outage and re-registration at one size.
type stormPhase struct {
	N        int    `json:"n"`
	Clients  int    `json:"clients"`
	Strategy string `json:"strategy"`
	// Start and End bound the phase on the run's timeline.
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
	// Back is how many registrants registered again, and Last when the
	// last one did (from the heal), as the registrants saw it.
	Back int           `json:"back"`
	Last time.Duration `json:"last_ns"`
	// Calls condenses the registrants' calls after the heal; Started and
	// InFlight are per 100 ms from the heal.
	Calls    storm.Summary `json:"calls"`
	Started  []int         `json:"started"`
	InFlight []int         `json:"in_flight"`
	// Members are the members' own metric samples, from 1 s before the heal.
	Members []cluster.MemberMetrics `json:"members"`
	// SampledOver is how Members were read: "" inside the members'
	// processes, sampledOverHTTP over their /metrics (a cluster the
	// harness did not start).
	SampledOver string `json:"sampled_over,omitempty"`
	// MembersHTTP are the same members read over their /metrics at the
	// same time, when the run was asked to compare (alsoHTTP; not judged).
	MembersHTTP []cluster.MemberMetrics `json:"members_http,omitempty"`
	// Cost is what each process spent from the world's start to the end
	// of the phase: the harness (registrants, probes) and each
	// member.
	Cost []storm.ProcCost `json:"cost,omitempty"`
	// Lateness is how late the registrants' re-registration attempts
	// started after the time their back-off asked for: the harness's own
	// delay (nil in histories saved before it was measured).
	Lateness *storm.LateStats `json:"lateness,omitempty"`
	// Records are the registrants' calls after the heal and HealAt the
	// zero of their times on the run's timeline, kept only by a shard so
	// that merge can recompute Calls, Started and InFlight for the fleet.
	Records []storm.Record `json:"records,omitempty"`
	HealAt  time.Duration  `json:"heal_at_ns,omitempty"`
}

// id names a phase in op targets ("1000/jitter").
func (p stormPhase) id() string { return phaseID(p.N, p.Strategy) }

func phaseID(n int, strategy string) string { return strconv.Itoa(n) + "/" + strategy }

// sampledOverHTTP marks a phase whose members were read over /metrics.
const sampledOverHTTP = "http"

// The storm's op names (Target: the phase id); Count is a key count.
const (
	opListed    = "keys/listed_at_loss"
	opLeft      = "keys/left_at_heal"
	opKeysAfter = "keys/after"
)

// Measurement shape.
const (
	bucketWidth = 100 * time.Millisecond
	bucketCount = 600
	sampleEvery = 100 * time.Millisecond
	// sampleLead is how long before the heal the members start sampling.
	sampleLead = time.Second
	// countTimeout bounds one count of the keys.
	countTimeout = 5 * time.Second
)

// stormPrefix holds the registrants' keys.
const stormPrefix = "/svc/storm/"

// stormFleet is one phase's registrants as its plan's fleet (etcd.Fleet),
// with what measures them: the direct client that counts their keys, the
// harness's meter, the cut of their links, the members' samplers, and the
// phase it fills.
type stormFleet struct {
	s     *reregistrationStorm
	env   *scenarios.Env
	n     int
	limit uint64 // the open-file limit (connections per registrant)
	p     stormPhase
	r     *etcd.Etcd
	fleet *storm.Fleet
	log   *storm.Log
	// direct counts the keys and carries the shards' coordination keys.
	direct *clientv3.Client
	meter  *storm.SelfMeter
	// base is each member's metrics at the world's start, on a cluster the
	// harness did not start (what its members spent is read from them).
	base     []cluster.MetricSample
	cut      fault.Healer // the loss of every registrant's link
	sampling *samplingProbe
}

// newStormFleet returns the fleet of strategy b's phase at size n; the
// harness's meter runs from now (the world's start) to the phase's end.
func (s *reregistrationStorm) newStormFleet(env *scenarios.Env, n int, limit uint64, b storm.Backoff) *stormFleet {
	return &stormFleet{s: s, env: env, n: n, limit: limit, p: stormPhase{N: n, Strategy: strategyName(b)},
		log: &storm.Log{}, meter: storm.StartSelf(s.Shard.Name()), sampling: &samplingProbe{alsoHTTP: s.alsoHTTP}}
}

// Start creates this process's registrants on r's members, announces the
// phase to the other shards (if any), registers the registrants and brings
// the registry to the steady state the timeline assumes.
func (f *stormFleet) Start(ctx context.Context, r *etcd.Etcd) error {
	f.r, f.base, f.sampling.c = r, scrapeMembers(ctx, f.env, r.Cluster), r.Cluster
	if err := f.connect(); err != nil {
		return err
	}
	if f.s.Shard.Sharded() && !r.Cluster.Attached() {
		f.env.Printf("shard %s: members' client URLs for the other shards: --shard-endpoints %s", f.s.Shard.String(), strings.Join(r.Cluster.Endpoints(), ","))
	}
	if err := f.s.announcePhase(ctx, f, f.p.id()); err != nil {
		return fmt.Errorf("announcing phase %s: %w", f.p.id(), err)
	}
	f.register(ctx)
	f.steady(ctx)
	return nil
}

// connect creates the registrants (dialling the members' own client
// ports: no proxy), the cut of their links and the direct client.
func (f *stormFleet) connect() error {
	conn := storm.ConnOptions(netip.Addr{})
	if conn.Cut = fleetCut(f.env); f.env.Net == rig.Private {
		conn.Source = fleetAddr
	}
	var err error
	if f.fleet, err = f.s.newFleet(f.n, f.limit, f.r.Cluster.Endpoints(), conn, f.log); err != nil {
		return err
	}
	if f.cut, err = linkCut(f.env, f.r, conn.Cut); err != nil {
		return err
	}
	if f.direct, err = f.r.Cluster.Client(); err != nil {
		return fmt.Errorf("the client that counts the keys: %w", err)
	}
	return nil
}

// newFleet creates this process's registrants (its shard's slice of n)
// over endpoints (the members' own: no proxy), one connection each unless
// the open-file limit forbids, each dialled with conn.
// Their keys live in the run's namespace on a cluster the harness did not
// start (the lean registrants write raw keys; the run's clients, which
// count them, are confined to it), with the run's TLS and etcd user.
func (s *reregistrationStorm) newFleet(n int, limit uint64, endpoints []string, conn fakeservice.H2Options, log *storm.Log) (*storm.Fleet, error) {
	mine := s.Shard.Mine(n)
	f, err := storm.NewFleetOf(storm.FleetConfig{N: n, PerClient: storm.PerClient(mine, limit), Endpoints: endpoints,
		Prefix: etcdcli.Current().Namespace + stormPrefix, TTL: s.TTL, Renew: s.Renew, Timeout: s.CallTimeout,
		Conn: conn}, log, s.Shard.Owns)
	if err != nil {
		return nil, fmt.Errorf("creating the registrants: %w", err)
	}
	return f, nil
}

// register starts the renewals and registers every registrant once.
func (f *stormFleet) register(ctx context.Context) {
	f.fleet.StartRenewing(f.env.Rand) // renewals begin as each registrant registers
	t := time.Now()
	rctx, cancel := context.WithTimeout(ctx, steadyLimit(f.n))
	live := f.fleet.RegisterMissing(rctx, 64)
	cancel()
	fault.Failpoint("storm-registered")
	f.env.Printf("%d of %d registrants registered in %.1f s over %d connections; renewing every %s", live, f.fleet.Size(), time.Since(t).Seconds(), f.fleet.Clients(), f.s.Renew)
}

// Settle waits until every registrant is registered again or ctx ends
// (--duration after the heal) and keeps how many came back, when the
// last one did and how late their attempts started.
func (f *stormFleet) Settle(ctx context.Context, _ *history.Recorder) error {
	f.p.Back, f.p.Last = f.fleet.Back(ctx)
	late := f.fleet.Lateness()
	f.p.Lateness = &late
	return nil
}

// Stop stops the samplers (if they started), the renewals and
// re-registrations, and closes the registrants' and the direct client's
// connections: whatever ended the phase, nothing renews, re-registers or
// samples past the clean-up.
func (f *stormFleet) Stop() {
	f.sampling.stop()
	if f.fleet != nil {
		f.fleet.Close()
	}
	if f.direct != nil {
		f.direct.Close()
	}
}

// steadyLimit bounds the wait for a steady registry before a phase: every
// registrant registered, all N keys listed, the cluster healthy.
func steadyLimit(n int) time.Duration { return 30*time.Second + time.Duration(n/500)*time.Second }

// steady brings the world to the state a phase assumes: registrants whose
// first registration failed register again, and the registry lists all N
// keys. Whether it got there is judged from the count at the loss.
func (f *stormFleet) steady(ctx context.Context) {
	t := time.Now()
	limit := steadyLimit(f.n)
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	live := f.fleet.RegisterMissing(sctx, 64)
	listed := cluster.WaitKeyCount(sctx, f.direct, stormPrefix, f.n, time.Until(t.Add(limit)))
	f.env.Printf("steady state after %.1f s: %d registrants live, %s keys listed", time.Since(t).Seconds(), live, count(listed))
}

// count counts the registrants' keys directly on the members.
func (f *stormFleet) count(c context.Context) (int, string, error) {
	n, err := cluster.CountPrefix(c, f.direct, stormPrefix, countTimeout, false)
	return n, "", err
}

// countProbe counts the keys listed (at the loss).
func (f *stormFleet) countProbe(name, id string) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "count the keys listed (" + id + ")"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			rig.Op(ctx, rec, name, id, countTimeout, f.count)
			return nil
		}}
}

// drainProbe waits until no key is left or until (a timeline offset), and
// records how many are left (op End: when the keys were gone).
func (f *stormFleet) drainProbe(id string, until time.Duration) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "wait for the leases to drain (" + id + ")"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			limit := time.Until(rec.T0().Add(until))
			rig.Op(ctx, rec, opLeft, id, limit+countTimeout, func(c context.Context) (int, string, error) {
				left := cluster.WaitNoKeys(c, f.direct, stormPrefix, limit)
				if left < 0 {
					return 0, "", fmt.Errorf("the registry did not answer the count")
				}
				return left, "", nil
			})
			return nil
		}}
}

// samplingProbe starts the members' samplers as a timeline step and
// stops them when the phase ends: members the harness started sample
// themselves, the others are read over their /metrics; with alsoHTTP every
// member is read over /metrics as well (to compare the two).
type samplingProbe struct {
	c        *cluster.Cluster
	alsoHTTP bool
	mu       sync.Mutex
	cols     []*cluster.MetricsCollector
	// stopped is set by the first stop; own and overHTTP are what it got.
	stopped       bool
	own, overHTTP []cluster.MemberMetrics
}

func (sp *samplingProbe) probe() fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "members start sampling their metrics every 100 ms"},
		Func: func(context.Context, *history.Recorder) error {
			hows := []cluster.Sampling{cluster.SampleAuto}
			if sp.alsoHTTP {
				hows = append(hows, cluster.SampleHTTP)
			}
			for _, how := range hows {
				col, err := sp.c.CollectMetrics(sampleEvery, how)
				if err != nil {
					return err
				}
				sp.mu.Lock()
				if sp.stopped { // the phase ended first
					col.Stop()
				} else {
					sp.cols = append(sp.cols, col)
				}
				sp.mu.Unlock()
			}
			return nil
		}}
}

// readers returns what the metrics readers of the samplers spent (after stop).
func (sp *samplingProbe) readers() cluster.ReadersCost {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	var out cluster.ReadersCost
	for _, col := range sp.cols {
		rc := col.Readers()
		out.N, out.CPU, out.PeakRSS = out.N+rc.N, out.CPU+rc.CPU, out.PeakRSS+rc.PeakRSS
	}
	return out
}

// stop stops the samplers and returns what they recorded, and what the
// reading over /metrics did with alsoHTTP (nil if they never started). A
// later call returns the same.
func (sp *samplingProbe) stop() (own, overHTTP []cluster.MemberMetrics) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if !sp.stopped {
		var out [][]cluster.MemberMetrics
		for _, col := range sp.cols {
			out = append(out, col.Stop())
		}
		out = append(out, nil, nil)
		sp.stopped, sp.own, sp.overHTTP = true, out[0], out[1]
	}
	return sp.own, sp.overHTTP
}

// cost measures what the harness and each member spent so far: a member
// the harness started from /proc, one it did not from its metrics endpoint
// (against base, with the phase's samples).
func (f *stormFleet) cost(ctx context.Context, env *scenarios.Env, samples []cluster.MemberMetrics) []storm.ProcCost {
	out := []storm.ProcCost{f.meter.Stop()}
	for i, n := range f.r.Cluster.Nodes() {
		c, err := f.memberCost(ctx, i, n, samples)
		if err != nil {
			env.Printf("cost of %s: %v", n.Name, err)
		}
		out = append(out, c)
	}
	return out
}

func (f *stormFleet) memberCost(ctx context.Context, i int, n *cluster.Node, samples []cluster.MemberMetrics) (storm.ProcCost, error) {
	if !n.Attached() {
		ch := n.Child()
		if ch == nil {
			return storm.ProcCost{Name: n.Name}, fmt.Errorf("no process")
		}
		return storm.MemberCost(n.Name, ch.Pid())
	}
	if len(f.base) <= i {
		return storm.ProcCost{Name: n.Name}, fmt.Errorf("no reading of its metrics at the phase's start")
	}
	sctx, cancel := context.WithTimeout(ctx, countTimeout)
	defer cancel()
	last, err := n.Scrape(sctx)
	if err != nil {
		return storm.ProcCost{Name: n.Name}, err
	}
	var between []cluster.MetricSample
	if i < len(samples) {
		between = samples[i].Samples
	}
	return storm.RemoteCost(n.Name, f.base[i], last, between), nil
}

// scrapeMembers reads the metrics of every member of a cluster the harness
// did not start (nil for one it started, or when a member does not answer).
func scrapeMembers(ctx context.Context, env *scenarios.Env, c *cluster.Cluster) []cluster.MetricSample {
	if !c.Attached() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, countTimeout)
	defer cancel()
	var out []cluster.MetricSample
	for _, n := range c.Nodes() {
		m, err := n.Scrape(sctx)
		if err != nil {
			env.Printf("reading the metrics of %s at the phase's start (its cost will be missing): %v", n.Name, err)
			return nil
		}
		out = append(out, m)
	}
	return out
}
