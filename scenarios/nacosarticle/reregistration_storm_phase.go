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

	"sdchaos/clock"
	"sdchaos/cluster"
	"sdchaos/etcdcli"
	"sdchaos/fakeservice"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/storm"
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

// stormWorld is one size's cluster, fleet and direct client.
type stormWorld struct {
	n      int
	r      *rig.Etcd
	fleet  *storm.Fleet
	log    *storm.Log
	direct *clientv3.Client
	meter  *storm.SelfMeter
	// base is each member's metrics at the world's start, on a cluster the
	// harness did not start (what its members spent is read from them).
	base []cluster.MetricSample
	cut  fault.Healer // the loss of every registrant's link
}

// startWorld starts phase id's cluster and this process's
// registrants, announces the phase to the other shards (if any) and
// registers the registrants once.
func (s *reregistrationStorm) startWorld(ctx context.Context, env *scenarios.Env, n int, limit uint64, id string) (*stormWorld, error) {
	meter := storm.StartSelf(s.Shard.Name())
	private := env.Net == rig.Private
	r, err := rig.StartEtcd(ctx, env, rig.EtcdOptions{Namespace: s.namespace(env)})
	if err != nil {
		return nil, err
	}
	w := &stormWorld{n: n, r: r, log: &storm.Log{}, meter: meter, base: scrapeMembers(ctx, env, r.Cluster)}
	conn := storm.ConnOptions(netip.Addr{})
	if conn.Cut = fleetCut(env); private {
		conn.Source = fleetAddr
	}
	if w.fleet, err = s.newFleet(n, limit, r.Cluster.Endpoints(), conn, w.log); err != nil {
		w.close()
		return nil, err
	}
	r.Defer(w.fleet.Close) // whatever ends the run, no registrant renews or re-registers past the clean-up
	if w.cut, err = linkCut(env, r, conn.Cut); err != nil {
		w.close()
		return nil, err
	}
	if s.Shard.Sharded() && !r.Cluster.Attached() {
		env.Printf("shard %s: members' client URLs for the other shards: --shard-endpoints %s", s.Shard.String(), strings.Join(r.Cluster.Endpoints(), ","))
	}
	if w.direct, err = r.Cluster.Client(); err != nil {
		w.close()
		return nil, err
	}
	if err := s.announcePhase(ctx, w, id); err != nil {
		w.close()
		return nil, err
	}
	w.fleet.StartRenewing(env.Rand) // renewals begin as each registrant registers
	t := time.Now()
	rctx, cancel := context.WithTimeout(ctx, steadyLimit(n))
	live := w.fleet.RegisterMissing(rctx, 64)
	cancel()
	fault.Failpoint("storm-registered")
	env.Printf("%d of %d registrants registered in %.1f s over %d connections; renewing every %s", live, w.fleet.Size(), time.Since(t).Seconds(), w.fleet.Clients(), s.Renew)
	return w, nil
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

func (w *stormWorld) close() {
	if w.fleet != nil {
		w.fleet.Close()
	}
	if w.direct != nil {
		w.direct.Close()
	}
	w.r.Close()
}

// steadyLimit bounds the wait for a steady registry before a phase: every
// registrant registered, all N keys listed, the cluster healthy.
func steadyLimit(n int) time.Duration { return 30*time.Second + time.Duration(n/500)*time.Second }

// steady brings the world to the state a phase assumes: registrants whose
// first registration failed register again, and the registry lists all N
// keys. Whether it got there is judged from the count at the loss.
func (w *stormWorld) steady(ctx context.Context, env *scenarios.Env) {
	t := time.Now()
	limit := steadyLimit(w.n)
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	live := w.fleet.RegisterMissing(sctx, 64)
	listed := cluster.WaitKeyCount(sctx, w.direct, stormPrefix, w.n, time.Until(t.Add(limit)))
	env.Printf("steady state after %.1f s: %d registrants live, %s keys listed", time.Since(t).Seconds(), live, count(listed))
}

// phase runs one strategy's timeline once the registry is steady: steady
// renewals for one period, the loss for hold, the heal and the
// re-registration (until every registrant is back or --duration passes),
// then the last counts.
func (s *reregistrationStorm) phase(ctx context.Context, env *scenarios.Env, w *stormWorld, rec *history.Recorder, b storm.Backoff) (stormPhase, error) {
	p := stormPhase{N: w.n, Clients: w.fleet.Clients(), Strategy: strategyName(b)}
	if w.r.Cluster.Attached() {
		p.SampledOver = sampledOverHTTP
	}
	w.steady(ctx, env)
	at, hold := rec.Offset(time.Now())+s.Renew, s.hold(w.n)
	p.Start = at
	s.announceLoss(ctx, env, w, p.id(), rec.T0().Add(at))
	sampling := &samplingProbe{c: w.r.Cluster, alsoHTTP: s.alsoHTTP}
	tl := fault.Timeline{
		{At: at, Probe: w.countProbe(opListed, p.id())},
		{At: at, For: hold, Fault: linkLoss{cut: w.cut, fleet: w.fleet, backoff: b, rand: env.Rand}},
		{At: at + s.TTL, Probe: w.drainProbe(p.id(), at+hold-300*time.Millisecond)},
		{At: at + hold - sampleLead, Probe: sampling.probe()},
	}
	env.Printf("%s at N = %d: %s", p.Strategy, w.n, tl.Describe())
	err := tl.Run(ctx, rec)
	if err == nil {
		settle, cancel := context.WithTimeout(ctx, env.Duration)
		p.Back, p.Last = w.fleet.Back(settle)
		cancel()
		late := w.fleet.Lateness()
		p.Lateness = &late
		_ = clock.SleepUntil(ctx, w.log.Zero().Add(p.Last+sampleTail)) // the members sample the last calls too
		s.awaitShards(ctx, env, w, p.id())
		rig.Op(ctx, rec, opKeysAfter, p.id(), countTimeout, w.count)
	}
	p.Members, p.MembersHTTP = sampling.stop()
	p.End = rec.Offset(time.Now())
	p.Cost = w.cost(ctx, env, p.Members)
	if rc := sampling.readers(); rc.N > 0 {
		p.Cost = append(p.Cost, storm.ProcCost{Name: s.Shard.Name() + " (metrics readers)", CPU: rc.CPU, PeakRSS: rc.PeakRSS})
	}
	if err != nil {
		return p, err
	}
	recs := w.log.Records()
	p.Calls = storm.Summarize(recs)
	p.Started, p.InFlight = storm.Buckets(recs, bucketWidth, bucketCount)
	if s.Shard.Sharded() {
		p.Records, p.HealAt = recs, rec.Offset(w.log.Zero())
	}
	env.Printf("%s: %d of %d registered again, the last %.2f s after the link returned", p.Strategy, p.Back, w.fleet.Size(), p.Last.Seconds())
	return p, nil
}

// count counts the registrants' keys directly on the members.
func (w *stormWorld) count(c context.Context) (int, string, error) {
	n, err := cluster.CountPrefix(c, w.direct, stormPrefix, countTimeout, false)
	return n, "", err
}

// countProbe counts the keys listed (at the loss).
func (w *stormWorld) countProbe(name, id string) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "count the keys listed (" + id + ")"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			rig.Op(ctx, rec, name, id, countTimeout, w.count)
			return nil
		}}
}

// drainProbe waits until no key is left or until (a timeline offset), and
// records how many are left (op End: when the keys were gone).
func (w *stormWorld) drainProbe(id string, until time.Duration) fault.Probe {
	return fault.ProbeFunc{Event: history.Event{Kind: history.Probe, Label: "wait for the leases to drain (" + id + ")"},
		Func: func(ctx context.Context, rec *history.Recorder) error {
			limit := time.Until(rec.T0().Add(until))
			rig.Op(ctx, rec, opLeft, id, limit+countTimeout, func(c context.Context) (int, string, error) {
				left := cluster.WaitNoKeys(c, w.direct, stormPrefix, limit)
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
				sp.cols = append(sp.cols, col)
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
// reading over /metrics did with alsoHTTP (nil if they never started).
func (sp *samplingProbe) stop() (own, overHTTP []cluster.MemberMetrics) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	var out [][]cluster.MemberMetrics
	for _, col := range sp.cols {
		out = append(out, col.Stop())
	}
	out = append(out, nil, nil)
	return out[0], out[1]
}

// cost measures what the harness and each member spent so far: a member
// the harness started from /proc, one it did not from its metrics endpoint
// (against base, with the phase's samples).
func (w *stormWorld) cost(ctx context.Context, env *scenarios.Env, samples []cluster.MemberMetrics) []storm.ProcCost {
	out := []storm.ProcCost{w.meter.Stop()}
	for i, n := range w.r.Cluster.Nodes() {
		c, err := w.memberCost(ctx, i, n, samples)
		if err != nil {
			env.Printf("cost of %s: %v", n.Name, err)
		}
		out = append(out, c)
	}
	return out
}

func (w *stormWorld) memberCost(ctx context.Context, i int, n *cluster.Node, samples []cluster.MemberMetrics) (storm.ProcCost, error) {
	if !n.Attached() {
		ch := n.Child()
		if ch == nil {
			return storm.ProcCost{Name: n.Name}, fmt.Errorf("no process")
		}
		return storm.MemberCost(n.Name, ch.Pid())
	}
	if len(w.base) <= i {
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
	return storm.RemoteCost(n.Name, w.base[i], last, between), nil
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
