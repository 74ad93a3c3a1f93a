package nacosarticle

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"sdchaos/fakeservice"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
	"sdchaos/storm"
)

func TestShardValidate(t *testing.T) {
	s := &reregistrationStorm{}
	_ = s.Shard.Set("1/2")
	var c, external scenarios.Common
	external.ExternalFlags.Endpoints = "http://127.0.0.1:2379"
	if err := s.validateShard(c); err == nil {
		t.Error("a shard without --start-at passed")
	}
	_ = s.StartAt.Set("2026-11-30T10:00:00Z")
	if err := s.checkTarget(false); err == nil {
		t.Error("shard 1/2 without --shard-endpoints passed")
	}
	if err := s.checkTarget(true); err != nil || s.validateShard(external) != nil {
		t.Errorf("shard 1/2 with --endpoints (every shard attaches) refused: %v", err)
	}
	if err := s.ShardEndpoints.Set("http://127.0.0.1:12000,127.0.0.1:12002"); err != nil || s.validateShard(c) != nil || s.checkTarget(false) != nil {
		t.Errorf("a complete shard 1/2 refused: %v", err)
	}
	if err := s.validateShard(external); err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Errorf("--shard-endpoints with --endpoints: %v, want a usage error", err)
	}
	if err := s.ShardEndpoints.Set("http://nohost"); err == nil {
		t.Error("an endpoint without a port passed")
	}
	full := scentest.MustConfigure(t, "reregistration-storm", "--shard", "0/2", "--start-at", "2026-11-30T10:00:00Z").(*reregistrationStorm)
	if err := full.Validate(scenarios.Common{Net: rig.Private}); err == nil || !strings.Contains(err.Error(), "--net private") {
		t.Errorf("shards in a private namespace: %v, want a usage error", err)
	}
}

// TestMergeDataAddsTheShardsOnShardZerosHeal: two shards' phases merge
// into one: counts add up, calls are moved onto shard 0's heal, the last
// one back is the latest on that clock, the members come from shard 0.
func TestMergeDataAddsTheShardsOnShardZerosHeal(t *testing.T) {
	ms := time.Millisecond
	rec := func(start time.Duration, o history.Outcome) storm.Record {
		return storm.Record{Call: fakeservice.CallGrant, Start: start, End: start + 10*ms, Outcome: o}
	}
	s0 := stormRecord{T0: 1, Settle: time.Minute, Phases: []stormPhase{{N: 4, Strategy: "immediate", Clients: 2, Back: 2, Last: 150 * ms,
		HealAt: 10 * time.Second, Start: 5 * time.Second, End: 20 * time.Second,
		Records: []storm.Record{rec(0, history.OK), rec(120*ms, history.OK)}, Cost: []storm.ProcCost{{Name: "harness shard 0/2"}, {Name: "n1"}}}}}
	s1 := stormRecord{T0: 1, Settle: time.Minute, Phases: []stormPhase{{N: 4, Strategy: "immediate", Clients: 2, Back: 1, Last: 100 * ms,
		HealAt: 10*time.Second + 50*ms, Start: 5 * time.Second, End: 21 * time.Second,
		Records: []storm.Record{rec(0, history.OK), rec(60*ms, history.Unknown)}, Cost: []storm.ProcCost{{Name: "harness shard 1/2"}}}}}
	s0.Phases[0].Members = nil
	var datas []json.RawMessage
	for _, r := range []stormRecord{s0, s1} {
		b, _ := json.Marshal(r)
		datas = append(datas, b)
	}
	out, err := (&reregistrationStorm{}).MergeData(datas)
	if err != nil {
		t.Fatal(err)
	}
	var m stormRecord
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	p := m.Phases[0]
	if p.Clients != 4 || p.Back != 3 || p.Last != 150*ms || p.End != 21*time.Second || len(p.Cost) != 3 || p.Records != nil {
		t.Errorf("merged phase %+v", p)
	}
	if p.Calls.Calls != 4 || p.Calls.Timeouts != 1 || p.Started[0] != 2 || p.Started[1] != 2 {
		t.Errorf("calls %+v, started %v", p.Calls, p.Started[:3])
	}
	s1.Phases[0].Strategy = "jitter"
	b, _ := json.Marshal(s1)
	if _, err := (&reregistrationStorm{}).MergeData([]json.RawMessage{datas[0], b}); err == nil {
		t.Error("shards with other phases merged")
	}
}
