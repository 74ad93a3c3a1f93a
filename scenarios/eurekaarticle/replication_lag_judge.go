//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"
	"math"
	"slices"
	"time"

	"sdchaos/eureka"
	"sdchaos/report"
)

// firstRegister returns when a server first got app/id by a register of the
// given kind (direct or replicated).
func firstRegister(h eureka.History, key string, replicated bool) (time.Duration, bool) {
	for _, e := range h.Events {
		if e.Kind == eureka.EventRegister && e.ID == key && e.Replicated == replicated {
			return e.At, true
		}
	}
	return 0, false
}

// firstListing returns when the first successful fetch at or after from listed id.
func firstListing(evs []eureka.FetchEvent, id string, from time.Duration) (time.Duration, bool) {
	for _, f := range evs {
		if f.At >= from && f.OK && slices.Contains(f.IDs, id) {
			return f.At, true
		}
	}
	return 0, false
}

// lagStats are the delays one run measured.
type lagStats struct {
	peer            map[string][]float64 // ms, by peer
	client          map[string][]float64 // s, by client
	allPeer, allCli []float64
	// missingPeer counts registrations a peer never got; mis, those a client never listed.
	missingPeer, mis int
}

func (run *lagRun) stats() lagStats {
	st := lagStats{peer: map[string][]float64{}, client: map[string][]float64{}}
	origin := run.servers[run.origin]
	for _, id := range run.ids {
		at, ok := firstRegister(origin, "REG/"+id, false)
		if !ok {
			st.missingPeer++
			continue
		}
		for name, h := range run.servers {
			if name == run.origin {
				continue
			}
			if p, ok := firstRegister(h, "REG/"+id, true); ok {
				st.peer[name] = append(st.peer[name], report.Ms(p-at))
			} else {
				st.missingPeer++
			}
		}
		for name, evs := range run.fetchers {
			if c, ok := firstListing(evs, id, at); ok {
				st.client[name] = append(st.client[name], (c - at).Seconds())
			} else {
				st.mis++
			}
		}
	}
	for _, v := range st.peer {
		st.allPeer = append(st.allPeer, v...)
	}
	for _, v := range st.client {
		st.allCli = append(st.allCli, v...)
	}
	return st
}

// judge turns a replication-lag run into the result (pure).
func (s *replicationLag) judge(run *lagRun) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds = run.duration.Seconds() / run.factor
	st := run.stats()
	cfg := s.eu.config()
	m := res.Metrics
	m["peer_visible_ms.p50"], m["peer_visible_ms.p99"] = report.Percentile(st.allPeer, 50), report.Percentile(st.allPeer, 99)
	_, m["peer_visible_ms.max"] = report.MinMax(st.allPeer)
	m["client_visible_s.p50"] = report.Percentile(st.allCli, 50)
	_, m["client_visible_s.max"] = report.MinMax(st.allCli)
	worst := s.worstCase()
	m["client_visible_s.worst_case"], m["missing"] = worst.Seconds(), float64(st.missingPeer+st.mis)
	res.AddTable(s.summaryTable(st, worst, run.duration))
	res.AddTable(s.detailTable(st))
	batch := report.Ms(cfg.BatchDelay)
	res.AddCheck(
		report.Equal("registrations never seen on a peer or by a client", "—", float64(st.missingPeer+st.mis), 0, ""),
		report.Between("peer visible, median", "asynchronous, brief disagreement", m["peer_visible_ms.p50"], batch, batch+250, " ms"),
		report.Between("peer visible, p99", "asynchronous, brief disagreement", m["peer_visible_ms.p99"], batch, batch+250, " ms"),
	)
	if cfg.ResponseCache {
		res.AddCheck(report.Between("client visible, worst", "lags up to about the fetch interval",
			m["client_visible_s.max"], (s.Fetch + cfg.BatchDelay).Seconds(), worst.Seconds()+1, " s"))
	} else {
		res.AddCheck(report.AtMost("client visible, worst (no response cache)", "lags up to about the fetch interval",
			m["client_visible_s.max"], worst.Seconds()+1, " s"))
	}
	s.conclude(res, worst)
	return res
}

func (s *replicationLag) summaryTable(st lagStats, worst, d time.Duration) report.Table {
	cfg := s.eu.config()
	lo, hi := report.MinMax(st.allPeer)
	clo, chi := report.MinMax(st.allCli)
	cache := "off"
	if cfg.ResponseCache {
		cache = fmtModel(cfg.CacheUpdate)
	}
	return report.Table{Title: fmt.Sprintf("Visibility of %d registrations on %s (model time)", s.Instances, "s1"),
		Header: []string{"seen by", "samples", "min", "median", "p99", "max", "bound from the configuration"},
		Rows: [][]string{
			{"each peer's registry", fmt.Sprint(len(st.allPeer)), msStr(lo), msStr(report.Percentile(st.allPeer, 50)),
				msStr(report.Percentile(st.allPeer, 99)), msStr(hi), fmt.Sprintf("batching: a lone task waits %s", fmtModel(cfg.BatchDelay))},
			{"a client fetching from a peer", fmt.Sprint(len(st.allCli)), secStr(clo), secStr(report.Percentile(st.allCli, 50)),
				secStr(report.Percentile(st.allCli, 99)), secStr(chi),
				fmt.Sprintf("batching %s + response cache %s + fetch %s = %s", fmtModel(cfg.BatchDelay), cache, fmtModel(s.Fetch), fmtModel(worst))},
		},
		Notes: []string{wallNote(s.eu.Scale, d)}}
}

func (s *replicationLag) detailTable(st lagStats) report.Table {
	t := report.Table{Title: "Per peer and per client", Header: []string{"who", "median", "max"}}
	for _, name := range sortedKeys(st.peer) {
		_, hi := report.MinMax(st.peer[name])
		t.Rows = append(t.Rows, []string{"peer " + name, msStr(report.Median(st.peer[name])), msStr(hi)})
	}
	for _, name := range sortedKeys(st.client) {
		_, hi := report.MinMax(st.client[name])
		t.Rows = append(t.Rows, []string{name, secStr(report.Median(st.client[name])), secStr(hi)})
	}
	return t
}

func msStr(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.0f ms", v)
}

func secStr(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.1f s", v)
}

func (s *replicationLag) conclude(res *report.Result, worst time.Duration) {
	m := res.Metrics
	cfg := s.eu.config()
	res.Conclude(fmt.Sprintf("A registration reached the peers %.0f ms later at the median (p99 %.0f ms): replication is asynchronous and batched, and a task alone in the queue waits the full %s batching delay, so for that long s1 and its peers disagree.",
		m["peer_visible_ms.p50"], m["peer_visible_ms.p99"], fmtModel(cfg.BatchDelay)))
	why := "plus the fetch interval"
	if cfg.ResponseCache {
		why = fmt.Sprintf("plus up to %s in the peer's read-only response cache plus the fetch interval", fmtModel(cfg.CacheUpdate))
	}
	res.Conclude(fmt.Sprintf("A client fetching every %s from a peer saw it %.1f s later at the median and %.1f s at worst (bound %s: replication %s).",
		fmtModel(s.Fetch), m["client_visible_s.p50"], m["client_visible_s.max"], fmtModel(worst), why))
}
