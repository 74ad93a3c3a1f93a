package eurekaarticle

import (
	"fmt"
	"slices"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka/eurekamodel"
)

// lagMeasure holds the delays one run measured.
type lagMeasure struct {
	data lagData
	// registered counts the registrations that succeeded; failed those that did not.
	registered, failed int
	peer               map[string][]float64 // ms, by peer
	client             map[string][]float64 // s, by client
	allPeer, allCli    []float64
	// missingPeer counts registrations a peer never got (or that s1 never
	// recorded); missingCli those a client never listed.
	missingPeer, missingCli int
}

func (m lagMeasure) missing() int { return m.failed + m.missingPeer + m.missingCli }

// firstRegister returns when a server first got app/id by a register of the
// given kind (direct or replicated).
func firstRegister(h eurekamodel.History, key string, replicated bool) (time.Duration, bool) {
	for _, e := range h.Events {
		if e.Kind == eurekamodel.EventRegister && e.ID == key && e.Replicated == replicated {
			return e.At, true
		}
	}
	return 0, false
}

// firstListing returns when the first successful fetch at or after from listed id.
func firstListing(evs []eurekamodel.FetchEvent, id string, from time.Duration) (time.Duration, bool) {
	for _, f := range evs {
		if f.At >= from && f.OK && slices.Contains(f.IDs, id) {
			return f.At, true
		}
	}
	return 0, false
}

// measure fills the measurement from the registration ops and the stored
// histories and fetches.
func (s *replicationLag) measure(h *history.History) (lagMeasure, error) {
	m := lagMeasure{peer: map[string][]float64{}, client: map[string][]float64{}}
	if err := h.DataInto(&m.data); err != nil {
		return m, err
	}
	for _, op := range history.Filter(h.Ops, opRegister) {
		if op.Outcome != history.OK {
			m.failed++
			continue
		}
		m.registered++
		s.measureOne(&m, op.Target)
	}
	for _, name := range sortedNames(m.peer) {
		m.allPeer = append(m.allPeer, m.peer[name]...)
	}
	for _, name := range sortedNames(m.client) {
		m.allCli = append(m.allCli, m.client[name]...)
	}
	return m, nil
}

// measureOne follows one registration from s1 to the peers and the clients.
func (s *replicationLag) measureOne(m *lagMeasure, id string) {
	at, ok := firstRegister(m.data.Servers[m.data.Origin], "REG/"+id, false)
	if !ok {
		m.missingPeer++
		return
	}
	for name, h := range m.data.Servers {
		if name == m.data.Origin {
			continue
		}
		if p, ok := firstRegister(h, "REG/"+id, true); ok {
			m.peer[name] = append(m.peer[name], report.Ms(p-at))
		} else {
			m.missingPeer++
		}
	}
	for name, evs := range m.data.Fetchers {
		if c, ok := firstListing(evs, id, at); ok {
			m.client[name] = append(m.client[name], (c - at).Seconds())
		} else {
			m.missingCli++
		}
	}
}

// Judge turns the recorded run into the result (pure).
func (s *replicationLag) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, err := s.measure(h)
	registered := report.Yes("instances registered on s1", "yes", "no")
	switch {
	case err != nil:
		res.AddCheck(registered.Invalid(err.Error()))
		return res
	case m.registered+m.failed == 0:
		res.AddCheck(registered.Invalid("no registration was recorded"))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddTable(s.summaryTable(m))
	res.AddTable(s.detailTable(m))
	res.AddCheck(s.checks(m)...)
	s.conclude(res, m)
	return res
}

func (s *replicationLag) metrics(mt report.Metrics, m lagMeasure) {
	mt["peer_visible_ms.p50"], mt["peer_visible_ms.p99"] = report.Percentile(m.allPeer, 50), report.Percentile(m.allPeer, 99)
	_, mt["peer_visible_ms.max"] = report.MinMax(m.allPeer)
	mt["client_visible_s.p50"] = report.Percentile(m.allCli, 50)
	_, mt["client_visible_s.max"] = report.MinMax(m.allCli)
	mt["client_visible_s.worst_case"], mt["missing"] = s.worstCase().Seconds(), float64(m.missing())
}

// clientBand is the band of the worst client delay: at most the configured
// worst case + 1 s; at least fetch + batching with the response cache (its
// staleness shows over many samples), else the batching delay.
func (s *replicationLag) clientBand() (lo, hi time.Duration, basis string) {
	cfg := s.eu.config()
	hi = s.worstCase() + time.Second
	if cfg.ResponseCache {
		return s.Fetch + cfg.BatchDelay, hi, "batching 0.5 s + response cache 30 s + fetch interval (+1 s); at least fetch + batching"
	}
	return cfg.BatchDelay, hi, "batching 0.5 s + fetch interval (+1 s), no response cache"
}

func (s *replicationLag) checks(m lagMeasure) []report.Check {
	cfg := s.eu.config()
	batch := report.Ms(cfg.BatchDelay)
	slack := report.Ms(s.eu.requestSlack())
	peer := func(name string, v float64) report.Check {
		return report.Band(name, batch, batch+slack, " ms").Digits(0).
			From(fmt.Sprintf("a lone task waits maxBatchingDelay (500 ms) before its batch is sent; +%s for the request (%s)",
				msStr(slack), s.eu.requestSlackWhy())).
			Says(report.Says("replication is asynchronous; two servers can briefly disagree")).Judge(v)
	}
	lo, hi, basis := s.clientBand()
	_, worst := report.MinMax(m.allCli)
	client := report.Band("client visible, worst", lo.Seconds(), hi.Seconds(), " s").Digits(1).From(basis).
		Says(report.SaysValue("a client's copy is refreshed by a delta every 30 s", 30).OnlyIf(s.Fetch == 30*time.Second)).
		Within((cfg.BatchDelay + s.eu.requestSlack()).Seconds(), fmt.Sprintf("the article's 30 s is the fetch interval alone; a registration also "+
			"waits maxBatchingDelay (%s) and one request (+%s) before a peer has it", cfg.BatchDelay, msStr(slack))).
		Spread("the worst wait is set by where the registrations fall against the client's fetch ticks (a seeded phase): " +
			"anything up to one fetch interval; the article's 30 s is the longest the rule allows").
		Because("the peer answers fetches from its read-only response cache, refreshed every 30 s (responseCacheUpdateIntervalMs), " +
			"so a registration can wait there up to 30 s before the client's 30 s fetch; --response-cache=false gives the article's 30 s")
	return []report.Check{
		report.Exactly("registrations never seen on a peer or by a client", 0, "").
			From("every register is replicated to every peer; every client fetches from a peer").
			Says(report.Says("replication is asynchronous")).
			JudgeText(float64(m.missing()), fmt.Sprintf("%d (%d failed, %d not on a peer, %d not listed by a client)", m.missing(), m.failed, m.missingPeer, m.missingCli)),
		peer("peer visible, median", report.Percentile(m.allPeer, 50)),
		peer("peer visible, p99", report.Percentile(m.allPeer, 99)),
		client.Judge(worst),
	}
}

func (s *replicationLag) summaryTable(m lagMeasure) report.Table {
	cfg := s.eu.config()
	lo, hi := report.MinMax(m.allPeer)
	clo, chi := report.MinMax(m.allCli)
	cache := "off"
	if cfg.ResponseCache {
		cache = eurekamodel.FormatModel(cfg.CacheUpdate)
	}
	return report.Table{Title: fmt.Sprintf("Visibility of %d registrations on %s (model time)", m.registered, m.data.Origin),
		Header: []string{"seen by", "samples", "min", "median", "p99", "max", "bound from the configuration"},
		Rows: [][]string{
			{"each peer's registry", fmt.Sprint(len(m.allPeer)), msStr(lo), msStr(report.Percentile(m.allPeer, 50)),
				msStr(report.Percentile(m.allPeer, 99)), msStr(hi), fmt.Sprintf("batching: a lone task waits %s", eurekamodel.FormatModel(cfg.BatchDelay))},
			{"a client fetching from a peer", fmt.Sprint(len(m.allCli)), secStr(clo), secStr(report.Percentile(m.allCli, 50)),
				secStr(report.Percentile(m.allCli, 99)), secStr(chi),
				fmt.Sprintf("batching %s + response cache %s + fetch %s = %s", eurekamodel.FormatModel(cfg.BatchDelay), cache,
					eurekamodel.FormatModel(s.Fetch), eurekamodel.FormatModel(s.worstCase()))},
		},
		Notes: []string{eurekamodel.WallNote(m.data.Clock.Factor, m.data.Duration)}}
}

func (s *replicationLag) detailTable(m lagMeasure) report.Table {
	t := report.Table{Title: "Per peer and per client", Header: []string{"who", "median", "max"}}
	for _, name := range sortedNames(m.peer) {
		_, hi := report.MinMax(m.peer[name])
		t.Rows = append(t.Rows, []string{"peer " + name, msStr(report.Median(m.peer[name])), msStr(hi)})
	}
	for _, name := range sortedNames(m.client) {
		_, hi := report.MinMax(m.client[name])
		t.Rows = append(t.Rows, []string{name, secStr(report.Median(m.client[name])), secStr(hi)})
	}
	return t
}

func (s *replicationLag) conclude(res *report.Result, m lagMeasure) {
	cfg := s.eu.config()
	res.Conclude(fmt.Sprintf("A registration reached the peers %s later at the median (p99 %s): replication is asynchronous and batched, and a task alone in the queue waits the full %s batching delay, so for that long s1 and its peers disagree.",
		msStr(report.Percentile(m.allPeer, 50)), msStr(report.Percentile(m.allPeer, 99)), eurekamodel.FormatModel(cfg.BatchDelay)))
	why := "plus the fetch interval"
	if cfg.ResponseCache {
		why = fmt.Sprintf("plus up to %s in the peer's read-only response cache plus the fetch interval", eurekamodel.FormatModel(cfg.CacheUpdate))
	}
	_, worst := report.MinMax(m.allCli)
	res.Conclude(fmt.Sprintf("A client fetching every %s from a peer saw it %s later at the median and %s at worst (bound %s: replication %s).",
		eurekamodel.FormatModel(s.Fetch), secStr(report.Percentile(m.allCli, 50)), secStr(worst), eurekamodel.FormatModel(s.worstCase()), why))
	if m.missing() > 0 {
		res.Conclude(fmt.Sprintf("%d registrations were never seen somewhere they should have been.", m.missing()))
	}
}
