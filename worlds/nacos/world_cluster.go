package nacos

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"sdchaos/cpulimit"
	"sdchaos/fault"
	"sdchaos/history"
)

// startRegistry starts the world's registry: the server, or with spec.Cluster the cluster (its
// first member then stands for the server: its list is the one sampled, its logs the ones the
// Record's ServerLog holds).
func (w *World) startRegistry(ctx context.Context) error {
	if w.spec.Cluster == nil {
		s, err := StartServer(ctx, w.sup, w.spec.ServerPorts, w.spec.Server)
		if err != nil {
			return fmt.Errorf("starting the Nacos server: %w", err)
		}
		w.server = s
		w.spec.Logf("the Nacos server ready on %s in %.1f s", s.Addr(), s.StartupTime().Seconds())
		return w.limitServer()
	}
	c, err := StartCluster(ctx, w.sup, w.spec.ServerPorts, *w.spec.Cluster)
	if err != nil {
		return err
	}
	w.cluster, w.server = c, c.Member(0).Server()
	tm := c.Timing()
	w.spec.Logf("a Nacos cluster of %d serving on %v in %.1f s (members ready after %v; JVM CPU %v)", len(c.Members()),
		c.Addrs(), tm.Serving.Seconds(), roundDurations(tm.Members), roundDurations(tm.CPU))
	return nil
}

// roundDurations rounds each to 100 ms for a progress line.
func roundDurations(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(100 * time.Millisecond)
	}
	return out
}

// newLink opens a client's link: to the server, or to every member of the cluster.
func (w *World) newLink(name string) (*Link, error) {
	if w.cluster != nil {
		return NewClusterLinkFrom(w.spec.LinkPorts, w.cluster.Members(), name, w.spec.ClientSource)
	}
	return NewLinkFrom(w.spec.LinkPorts, w.server, name, w.spec.ClientSource)
}

// Cluster returns the world's cluster (nil for a single server, or before Start).
func (w *World) Cluster() *Cluster { return w.cluster }

// Members returns the named cluster members as a fault kills and starts them again.
func (w *World) Members(names []string) ([]fault.ServerProcess, error) {
	if w.cluster == nil {
		return nil, fmt.Errorf("members %v: the world runs a single server", names)
	}
	var out []fault.ServerProcess
	for _, n := range names {
		m := w.member(n)
		if m == nil {
			return nil, fmt.Errorf("member %q: not one of the cluster's %v", n, w.cluster.Addrs())
		}
		out = append(out, memberProcess{m})
	}
	return out, nil
}

func (w *World) member(name string) *Member {
	for _, m := range w.cluster.Members() {
		if m.Name() == name {
			return m
		}
	}
	return nil
}

// memberProcess is a member as fault.ServerProcess: Start is Member.Restart.
type memberProcess struct{ *Member }

// Start starts the member again on its home and ports and returns once it is ready.
func (p memberProcess) Start(ctx context.Context) error { _, err := p.Restart(ctx); return err }

// MemberRecord is what a run observed of one cluster member: its list of the service as its
// naming index holds it (the publishers, read every SamplePeriod), its own logs' events, and
// every start of its JVM after the first (launch and ready, from the recorder's zero; Ready −1
// when it never was).
type MemberRecord struct {
	Name       string            `json:"name"`
	Publishers []PublisherSample `json:"publishers"`
	Log        []LogEvent        `json:"log"`
	Restarts   []MemberStart     `json:"restarts,omitempty"`
}

// PublisherSample is one reading of a member's publishers of the service: Clients publishers
// (a client that registered an instance: one per registration, so a re-registered instance
// whose old client the member still holds counts twice) and Distinct ip:port among them
// (what a subscriber of that member is listed); −1 each when the reading failed, Err saying
// why.
type PublisherSample struct {
	At       time.Duration `json:"at_ns"`
	Clients  int           `json:"clients"`
	Distinct int           `json:"distinct"`
	Err      string        `json:"err,omitempty"`
}

// MemberStart is one launch of a member's JVM after its first: when it was launched and when
// its readiness endpoint first answered ok.
type MemberStart struct {
	Launched time.Duration `json:"launched_ns"`
	Ready    time.Duration `json:"ready_ns"`
}

// memberSampler reads every member's publishers of the service every Sample while the run
// lasts (each member in its own loop, so a dead member's slow answer delays no other).
type memberSampler struct {
	w  *World
	mu sync.Mutex
	// samples holds each member's readings, in the members' order.
	samples [][]PublisherSample
}

// Run reads until d after rec's zero or until ctx ends.
func (s *memberSampler) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	dctx, cancel := context.WithDeadline(ctx, rec.T0().Add(d))
	defer cancel()
	ms := s.w.cluster.Members()
	s.samples = make([][]PublisherSample, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() { defer wg.Done(); s.loop(dctx, rec, i, m) }()
	}
	wg.Wait()
	return ctx.Err()
}

// loop reads member m every Sample until ctx ends; a reading cut short by the end is not kept.
func (s *memberSampler) loop(ctx context.Context, rec *history.Recorder, i int, m *Member) {
	tick := time.NewTicker(s.w.spec.Sample)
	defer tick.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		ps, err := m.Publishers(rctx, s.w.spec.Service)
		cancel()
		if ctx.Err() != nil {
			return
		}
		smp := PublisherSample{At: rec.Offset(time.Now()), Clients: len(ps), Distinct: distinct(ps)}
		if err != nil {
			smp.Clients, smp.Distinct, smp.Err = -1, -1, err.Error()
		}
		s.mu.Lock()
		s.samples[i] = append(s.samples[i], smp)
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// memberRecords returns each member's record: its publishers' readings, its logs' events (its
// home keeps them across restarts) and its restarts.
func (w *World) memberRecords(rec *history.Recorder) ([]MemberRecord, error) {
	var out []MemberRecord
	for i, m := range w.cluster.Members() {
		r := MemberRecord{Name: m.Name()}
		if w.members != nil {
			w.members.mu.Lock()
			if i < len(w.members.samples) {
				r.Publishers = append(r.Publishers, w.members.samples[i]...)
			}
			w.members.mu.Unlock()
		}
		evs, err := (&Server{name: m.Name(), home: m.Home()}).Events()
		if err != nil {
			return nil, err
		}
		for _, e := range evs {
			r.Log = append(r.Log, LogEvent{At: rec.Offset(e.At), Kind: e.Kind, Size: e.Size, Detail: e.Detail})
		}
		for _, s := range m.starts() {
			st := MemberStart{Launched: rec.Offset(s.launched), Ready: -1}
			if s.took > 0 {
				st.Ready = rec.Offset(s.launched.Add(s.took))
			}
			r.Restarts = append(r.Restarts, st)
		}
		out = append(out, r)
	}
	return out, nil
}

// distinct counts the distinct ip:port among the publishers.
func distinct(ps []Publisher) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[net.JoinHostPort(p.IP, strconv.Itoa(p.Port))] = true
	}
	return len(seen)
}

// recordOwners reads, once every instance is listed, which member holds each instance's
// connection.
func (w *World) recordOwners(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	owners, err := w.cluster.Owners(rctx, w.spec.Service)
	if err != nil {
		w.spec.Logf("the instances' owners: %v", err)
	}
	w.owners = owners
}

// OwnerRecord is the member holding one instance's connection (its client's id and the
// instance's port), read once every instance was listed.
type OwnerRecord struct {
	Client string `json:"client"`
	Port   int    `json:"port"`
	Member string `json:"member"`
}

// ownerRecords are the owners as the Record holds them, the members named by name.
func (w *World) ownerRecords() []OwnerRecord {
	names := map[string]string{}
	for _, m := range w.cluster.Members() {
		names[m.Address()] = m.Name()
	}
	out := make([]OwnerRecord, len(w.owners))
	for i, o := range w.owners {
		out[i] = OwnerRecord{Client: o.ClientID, Port: o.Port, Member: names[o.Member]}
	}
	return out
}

// limitServer puts the server's JVM under the spec's CPU quota (none when CPULimit is 0).
func (w *World) limitServer() error {
	if w.spec.CPULimit == 0 {
		return nil
	}
	l, err := cpulimit.New(fmt.Sprintf("nacos-%d-%d", os.Getpid(), w.server.Pid()), w.spec.CPULimit)
	if err != nil {
		return fmt.Errorf("limiting the server's CPU: %w", err)
	}
	w.limit = l
	w.sup.AdoptDir(l.Dir())
	if err := l.Add(w.server.Pid()); err != nil {
		return fmt.Errorf("limiting the server's CPU: %w", err)
	}
	w.spec.Logf("%s under %s (%s)", w.server.Name(), l.Describe(), l.Dir())
	return nil
}

// limitRecord is the CPU limit's description and its throttling so far ("" and zeros without).
func (w *World) limitRecord() (string, int64, int64, time.Duration) {
	if w.limit == nil {
		return "", 0, 0, 0
	}
	t, p, d, err := w.limit.Throttled()
	if err != nil {
		w.spec.Logf("%v", err)
	}
	return w.limit.Describe(), t, p, d
}
