package cluster

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"
)

// A member the harness started samples its own Prometheus registry (the
// one embed.Etcd registers its metrics in) inside its process, so a
// reading is not delayed by a loopback that the clients overload; a member
// it did not start is read over its metrics endpoint (metrics_scrape.go).
// Both sum the same families into a MetricSample (addFamilies). The metric
// names are etcd v3.7's (server/etcdserver/metrics.go,
// server/lease/metrics.go, server/storage/mvcc/metrics.go) and its gRPC
// server metrics (go-grpc-middleware/providers/prometheus, registered by
// server/etcdserver/api/v3rpc/grpc.go); etcd 3.4 exports them all but
// etcd_server_request_duration_seconds (read on a 3.4.25 member's
// /metrics), which a sample then notes as missing.
const (
	metricStarted       = "grpc_server_started_total"
	metricHandled       = "grpc_server_handled_total"
	metricDuration      = "etcd_server_request_duration_seconds"
	metricLeaderChanges = "etcd_server_leader_changes_seen_total"
	metricHasLeader     = "etcd_server_has_leader"
	metricIsLeader      = "etcd_server_is_leader"
	metricPropCommitted = "etcd_server_proposals_committed_total"
	metricPropApplied   = "etcd_server_proposals_applied_total"
	metricPropPending   = "etcd_server_proposals_pending"
	metricPropFailed    = "etcd_server_proposals_failed_total"
	metricSlowApplies   = "etcd_server_slow_apply_total"
	metricLeaseGranted  = "etcd_debugging_lease_granted_total"
	metricLeaseRevoked  = "etcd_debugging_lease_revoked_total"
	metricLeaseRenewed  = "etcd_debugging_lease_renewed_total"
	metricPuts          = "etcd_mvcc_put_total"
	metricVersion       = "etcd_server_version"
)

// Family is a metric family of a member that the storm's judge reads: a
// member that does not export it (an external etcd of another version, a
// registry behind a filter) leaves its figure missing, never zero.
type Family string

// The families the judge reads.
const (
	FamilyStarted       Family = metricStarted
	FamilyHandled       Family = metricHandled
	FamilyDuration      Family = metricDuration
	FamilyHasLeader     Family = metricHasLeader
	FamilyLeaderChanges Family = metricLeaderChanges
)

// JudgedFamilies are the families a sample notes as missing when a reading
// does not hold them.
var JudgedFamilies = []Family{FamilyStarted, FamilyHandled, FamilyDuration, FamilyHasLeader, FamilyLeaderChanges}

// MetricSample is one reading of a member's counters and gauges. Counters
// are cumulative since the member process started.
type MetricSample struct {
	// T is the member's wall clock at the reading (Unix nanoseconds).
	T int64 `json:"t"`
	// Started counts gRPC calls the member started handling (every method).
	// The calls it ended are typed by Classify: HandledOK counts answers
	// with code OK, HandledErr the registry's errors (ErrCodes splits them
	// by code), StreamsClosed the streams their clients cancelled (clientv3's
	// KeepAliveOnce cancels its stream once it has the answer; the name in
	// JSON is the one histories always had), and StreamsUnavailable and
	// StreamsUnknown the streams that ended with those codes where they mean
	// no leader or closed by the client (EndNoLeaderOrClosed), which a
	// window decides by the member's leader.
	Started            float64            `json:"started"`
	HandledOK          float64            `json:"ok"`
	HandledErr         float64            `json:"err"`
	ErrCodes           map[string]float64 `json:"err_codes,omitempty"`
	StreamsClosed      float64            `json:"keepalive_closed"`
	StreamsUnavailable float64            `json:"streams_unavailable,omitempty"`
	StreamsUnknown     float64            `json:"streams_unknown,omitempty"`
	// Version is the member's etcd version (etcd_server_version), "" when
	// the reading did not hold it.
	Version string `json:"version,omitempty"`
	// Missing lists the JudgedFamilies the reading did not hold (histories
	// saved before it was noted have none).
	Missing []Family `json:"missing,omitempty"`
	// Duration is etcd_server_request_duration_seconds summed over request
	// types: how long the member took to serve reads and raft requests (put,
	// lease grant and revoke), from entering the server to the result.
	Duration Histogram `json:"duration"`
	// LeaderChanges counts the leader changes this member saw; HasLeader and
	// IsLeader are 1 or 0.
	LeaderChanges      float64 `json:"leader_changes"`
	HasLeader          float64 `json:"has_leader"`
	IsLeader           float64 `json:"is_leader"`
	ProposalsCommitted float64 `json:"proposals_committed"`
	ProposalsApplied   float64 `json:"proposals_applied"`
	ProposalsPending   float64 `json:"proposals_pending"`
	ProposalsFailed    float64 `json:"proposals_failed"`
	SlowApplies        float64 `json:"slow_applies"`
	LeasesGranted      float64 `json:"leases_granted"`
	LeasesRevoked      float64 `json:"leases_revoked"`
	LeasesRenewed      float64 `json:"leases_renewed"`
	Puts               float64 `json:"puts"`
	// ProcessCPU is the member process's CPU time in seconds and
	// ProcessRSS its resident memory in bytes (process_cpu_seconds_total,
	// process_resident_memory_bytes): what an external member spent.
	ProcessCPU float64 `json:"process_cpu_s,omitempty"`
	ProcessRSS float64 `json:"process_rss_bytes,omitempty"`
}

// Histogram is a cumulative Prometheus histogram: Counts[i] observations
// were at most Bounds[i] seconds.
type Histogram struct {
	Count  float64   `json:"count"`
	Sum    float64   `json:"sum"`
	Bounds []float64 `json:"bounds,omitempty"`
	Counts []float64 `json:"counts,omitempty"`
}

// add adds a dto histogram to h (same bucket bounds). The +Inf bucket,
// which the text format lists and the in-process registry leaves implicit,
// is Count.
func (h *Histogram) add(d *dto.Histogram) {
	h.Count += float64(d.GetSampleCount())
	h.Sum += d.GetSampleSum()
	bs := d.GetBucket()
	if n := len(bs); n > 0 && math.IsInf(bs[n-1].GetUpperBound(), 1) {
		bs = bs[:n-1]
	}
	if len(h.Bounds) == 0 {
		h.Bounds, h.Counts = make([]float64, len(bs)), make([]float64, len(bs))
		for i, b := range bs {
			h.Bounds[i] = b.GetUpperBound()
		}
	}
	for i, b := range bs {
		if i < len(h.Counts) {
			h.Counts[i] += float64(b.GetCumulativeCount())
		}
	}
}

// stampedGatherer is a Gatherer that dates its readings itself (one over
// HTTP: when the answer arrived).
type stampedGatherer interface {
	GatherStamped() ([]*dto.MetricFamily, time.Time, error)
}

// readMetrics reads one sample from g, dated by clock once the reading is
// done (a loaded member's gathering can take tens of milliseconds, and its
// counters are read during it; a reading dated when it began put a spike's
// first calls before it), unless g dates it.
func readMetrics(g prometheus.Gatherer, clock func() time.Time) (MetricSample, error) {
	var mfs []*dto.MetricFamily
	var err error
	var now time.Time
	if sg, ok := g.(stampedGatherer); ok {
		mfs, now, err = sg.GatherStamped()
	} else {
		mfs, err = g.Gather()
		now = clock()
	}
	if err != nil && len(mfs) == 0 {
		return MetricSample{}, fmt.Errorf("gathering metrics: %w", err)
	}
	s := MetricSample{T: now.UnixNano()}
	s.addFamilies(mfs)
	return s, nil
}

// addFamilies sums the families into s: the member's version first (the
// calls' ends are typed by it), then every family, and notes the judged
// families the reading did not hold.
func (s *MetricSample) addFamilies(mfs []*dto.MetricFamily) {
	var ver *Version
	held := map[Family]bool{}
	for _, mf := range mfs {
		held[Family(mf.GetName())] = true
		if mf.GetName() != metricVersion {
			continue
		}
		for _, m := range mf.GetMetric() {
			if v, err := ParseVersion(label(m, "server_version")); err == nil && m.GetGauge().GetValue() == 1 {
				s.Version, ver = v.String(), &v
			}
		}
	}
	for _, mf := range mfs {
		s.addFamily(mf, ver)
	}
	for _, f := range JudgedFamilies {
		if !held[f] {
			s.Missing = append(s.Missing, f)
		}
	}
}

// Lacks reports whether the reading did not hold family f.
func (s MetricSample) Lacks(f Family) bool {
	for _, m := range s.Missing {
		if m == f {
			return true
		}
	}
	return false
}

// scalars maps a counter or gauge family to the sample field it sums into.
func (s *MetricSample) scalars() map[string]*float64 {
	return map[string]*float64{
		metricStarted: &s.Started, metricLeaderChanges: &s.LeaderChanges, metricHasLeader: &s.HasLeader,
		metricIsLeader: &s.IsLeader, metricPropCommitted: &s.ProposalsCommitted, metricPropApplied: &s.ProposalsApplied,
		metricPropPending: &s.ProposalsPending, metricPropFailed: &s.ProposalsFailed, metricSlowApplies: &s.SlowApplies,
		metricLeaseGranted: &s.LeasesGranted, metricLeaseRevoked: &s.LeasesRevoked, metricLeaseRenewed: &s.LeasesRenewed,
		metricPuts: &s.Puts, metricProcessCPU: &s.ProcessCPU, metricProcessRSS: &s.ProcessRSS,
	}
}

func (s *MetricSample) addFamily(mf *dto.MetricFamily, ver *Version) {
	name := mf.GetName()
	switch name {
	case metricHandled:
		for _, m := range mf.GetMetric() {
			end := Classify(Method(label(m, "grpc_method")), ParseCode(label(m, "grpc_code")), ver)
			s.addHandled(end, label(m, "grpc_code"), m.GetCounter().GetValue())
		}
		return
	case metricDuration:
		for _, m := range mf.GetMetric() {
			s.Duration.add(m.GetHistogram())
		}
		return
	}
	field, ok := s.scalars()[name]
	if !ok {
		return
	}
	for _, m := range mf.GetMetric() {
		if c := m.GetCounter(); c != nil {
			*field += c.GetValue()
		} else if g := m.GetGauge(); g != nil {
			*field += g.GetValue()
		}
	}
}

func (s *MetricSample) addHandled(end CallEnd, code string, v float64) {
	switch end {
	case EndOK:
		s.HandledOK += v
		return
	case EndClosedByClient:
		s.StreamsClosed += v
		return
	case EndNoLeaderOrClosed:
		if code == codes.Unknown.String() {
			s.StreamsUnknown += v
		} else {
			s.StreamsUnavailable += v
		}
		return
	}
	s.HandledErr += v
	if v > 0 {
		if s.ErrCodes == nil {
			s.ErrCodes = map[string]float64{}
		}
		s.ErrCodes[code] += v
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sampler reads the member's metrics on a ticker and keeps the samples
// until the harness takes them. It runs inside the node process.
type sampler struct {
	g       prometheus.Gatherer
	mu      sync.Mutex
	samples []MetricSample
	stop    chan struct{}
	done    chan struct{}
}

// start begins sampling every interval (restarting a running sampler).
func (s *sampler) start(interval time.Duration) {
	s.halt()
	s.mu.Lock()
	s.samples, s.stop, s.done = nil, make(chan struct{}), make(chan struct{})
	stop, done := s.stop, s.done
	s.mu.Unlock()
	go s.loop(interval, stop, done)
}

func (s *sampler) loop(interval time.Duration, stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-stop:
			s.sample() // the last sample is as of the stop, not up to an interval before it
			return
		case <-t.C:
		}
	}
}

func (s *sampler) sample() {
	if m, err := readMetrics(s.g, time.Now); err == nil {
		s.mu.Lock()
		s.samples = append(s.samples, m)
		s.mu.Unlock()
	}
}

// halt stops a running sampler (the samples stay until taken).
func (s *sampler) halt() {
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.stop, s.done = nil, nil
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// take returns the samples kept so far and forgets them.
func (s *sampler) take() []MetricSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.samples
	s.samples = nil
	return out
}

// handle answers the control channel's metrics commands:
//
//	metrics start <ms>  → sample every <ms> milliseconds
//	metrics take        → the samples since the last take, as one JSON line
//	metrics stop        → stop sampling
func (s *sampler) handle(arg string) (string, error) {
	verb, rest, _ := strings.Cut(arg, " ")
	switch verb {
	case "start":
		ms, err := strconv.Atoi(rest)
		if err != nil || ms <= 0 {
			return "", fmt.Errorf("metrics start: bad interval %q", rest)
		}
		s.start(time.Duration(ms) * time.Millisecond)
		return "sampling every " + rest + " ms", nil
	case "take":
		b, err := json.Marshal(s.take())
		return string(b), err
	case "stop":
		s.halt()
		return "stopped", nil
	}
	return "", fmt.Errorf("unknown metrics command %q", verb)
}
