package nacosarticle

import (
	"encoding/json"
	"fmt"
	"sort"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/storm"
)

// MergeData combines the recorded data of the shards of one sharded storm
// (one entry per shard, shard 0's first: it holds the members' samples)
// into the data of one run with the whole fleet: per phase the shards'
// connections, registrants back and costs add up, the last one back is the
// latest, and the registrants' calls are put on shard 0's heal and
// condensed again. It fails when the shards did not record the same phases.
func (s *reregistrationStorm) MergeData(datas []json.RawMessage) (json.RawMessage, error) {
	recs := make([]stormRecord, len(datas))
	for i, d := range datas {
		if err := json.Unmarshal(d, &recs[i]); err != nil {
			return nil, fmt.Errorf("shard history %d: decoding the storm's data: %w", i+1, err)
		}
		if len(recs[i].Phases) != len(recs[0].Phases) {
			return nil, fmt.Errorf("shard history %d recorded %d phases, the first %d", i+1, len(recs[i].Phases), len(recs[0].Phases))
		}
	}
	out := stormRecord{T0: recs[0].T0, Settle: recs[0].Settle}
	for j := range recs[0].Phases {
		ps := make([]stormPhase, len(recs))
		for i, r := range recs {
			if ps[i] = r.Phases[j]; ps[i].id() != recs[0].Phases[j].id() {
				return nil, fmt.Errorf("shard history %d: phase %d is %s, the first history's %s", i+1, j+1, ps[i].id(), recs[0].Phases[j].id())
			}
		}
		out.Phases = append(out.Phases, mergePhases(ps))
	}
	return json.Marshal(out)
}

// mergePhases combines one phase as the shards recorded it (the harness's
// lateness as the worst shard's).
func mergePhases(ps []stormPhase) stormPhase {
	m := ps[0]
	m.Clients, m.Back, m.Last, m.Cost, m.Records, m.Lateness = 0, 0, 0, nil, nil, nil
	for _, p := range ps {
		if p.Lateness != nil { // the worst shard's: percentiles do not add
			l := p.Lateness.Worst(storm.LateStats{})
			if m.Lateness != nil {
				l = m.Lateness.Worst(*p.Lateness)
			}
			m.Lateness = &l
		}
		m.Clients += p.Clients
		m.Back += p.Back
		m.Last = max(m.Last, p.Last+p.HealAt-ps[0].HealAt)
		m.Start, m.End = min(m.Start, p.Start), max(m.End, p.End)
		m.Cost = append(m.Cost, p.Cost...)
		if len(p.Members) > 0 && len(m.Members) == 0 {
			m.Members = p.Members
		}
		for _, r := range p.Records {
			shift := p.HealAt - ps[0].HealAt
			r.Start, r.End = r.Start+shift, r.End+shift
			m.Records = append(m.Records, r)
		}
	}
	sort.Slice(m.Records, func(i, j int) bool { return m.Records[i].Start < m.Records[j].Start })
	m.Calls = storm.Summarize(m.Records)
	m.Started, m.InFlight = storm.Buckets(m.Records, bucketWidth, bucketCount)
	m.Records = nil // condensed: the merged history stays the size of a single run's
	return m
}

// shardResult is what one shard's own history says: its slice of each
// phase, not a judged run (the checks need every shard's registrants).
func (s *reregistrationStorm) shardResult(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	var rec stormRecord
	if err := h.DataInto(&rec); err != nil {
		res.Conclude("shard " + s.Shard.String() + " recorded no storm data: " + err.Error())
		return res
	}
	t := report.Table{Title: fmt.Sprintf("Shard %s: this process's registrants (registrants i with i mod %d = %d)", s.Shard.String(), s.Shard.N, s.Shard.K),
		Header: []string{"N", "strategy", "connections", "registered again", "last back after", "calls", "errors", "timeouts"}}
	var sizes []stormSize
	took := 0
	for _, p := range rec.Phases {
		if p.Clients > 0 && p.HealAt > 0 {
			took++
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.N), p.Strategy, fmt.Sprint(p.Clients), fmt.Sprint(p.Back),
			fmt.Sprintf("%.2f s", p.Last.Seconds()), fmt.Sprint(p.Calls.Calls), fmt.Sprint(p.Calls.Errors), fmt.Sprint(p.Calls.Timeouts)})
		sizes = append(sizes, stormSize{n: p.N, imm: stormSide{phase: p}})
	}
	res.AddTable(t)
	want := 2 * len(s.Sizes)
	res.AddCheck(report.Exactly(fmt.Sprintf("shard %s: phases in which this shard's registrants lost the link and re-registered", s.Shard.String()), float64(want), "").
		From(fmt.Sprintf("every size (%d) and strategy (2) runs on every shard at the instants shard 0 announces", len(s.Sizes))).
		Says(report.Says("a shard's slice of the fleet takes part in the whole storm")).
		JudgeText(float64(took), fmt.Sprintf("%d of %d", took, want)))
	if ct := costTable(sizes); ct != nil {
		res.AddTable(*ct)
	}
	res.Conclude(fmt.Sprintf("Shard %s of a sharded storm: not judged on its own. Judge the run with `experiments merge DIR…` over every shard's --out directory.", s.Shard.String()))
	return res
}
