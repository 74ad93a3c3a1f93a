package nacosarticle

import (
	"testing"
	"time"

	"sdchaos/caller"
	"sdchaos/cluster"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
	"sdchaos/storm"
)

const ms = time.Millisecond

func mkHistory(ops []history.Op, d time.Duration, evs ...history.Event) *history.History {
	return &history.History{Ops: ops, Events: evs, Timeline: d}
}

func ev(at time.Duration, kind history.EventKind, phase history.Phase, targets ...string) history.Event {
	return history.Event{At: at, Kind: kind, Phase: phase, Targets: targets, Label: string(kind)}
}

// within keeps the ops of caller scheduled in [from, to) (other callers' ops pass).
func within(ops []history.Op, caller string, from, to time.Duration) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Caller != caller || (op.Scheduled >= from && op.Scheduled < to) {
			out = append(out, op)
		}
	}
	return out
}

func TestSnapshotAtStartJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "snapshot-at-start").(*snapshotAtStart)
	evs := []history.Event{ev(2*time.Second, history.BlackholeLinks, history.Inject), ev(4*time.Second, history.CallerStop, history.Once, "before"),
		ev(4*time.Second, history.CallerStart, history.Once, "nosnap"), ev(4*time.Second, history.CallerStart, history.Once, "snap"),
		ev(8*time.Second, history.BlackholeLinks, history.Heal)}
	real := []string{scenarios.RealRoundRobin, scenarios.RealPickFirst}
	mk := func(fail func(c string, at time.Duration) bool) []history.Op {
		ops := scentest.Synth(append([]string{callerBefore, callerNoSnap, callerSnap}, real...), 40, 12*time.Second, fail)
		ops = within(ops, callerBefore, 0, 4*time.Second)
		for _, name := range append([]string{callerNoSnap, callerSnap}, real...) {
			ops = within(ops, name, 4*time.Second, 12*time.Second)
		}
		return ops
	}
	cold := func(c string) bool {
		return c == callerNoSnap || c == scenarios.RealRoundRobin || c == scenarios.RealPickFirst
	}
	nosnap := func(c string, at time.Duration) bool { return cold(c) && at < 8300*ms }
	tests := []struct {
		name    string
		fail    func(c string, at time.Duration) bool
		evs     []history.Event
		verdict report.Verdict
		check   string
	}{
		{"article shape", nosnap, evs, report.Reproduced, ""},
		// Must fail: the snapshot does not help; nosnap never recovers, or serves without a list.
		{"snap fails like nosnap", func(c string, at time.Duration) bool { return c != callerBefore && at < 8300*ms }, evs, report.Outside, "snap: failures"},
		{"nosnap recovers too late", func(c string, at time.Duration) bool { return c == callerNoSnap && at < 10*time.Second }, evs, report.Outside,
			"nosnap: first success after the registry is back"},
		{"nosnap serves during the outage", func(c string, at time.Duration) bool { return c == callerNoSnap && at < 6*time.Second }, evs, report.Outside,
			"nosnap: failed share from its start until the registry is back"},
		{"no restart recorded", nosnap, []history.Event{evs[0], evs[4]}, report.Invalid, "snap: failures"},
		{"the restarted real client serves during the outage", func(c string, at time.Duration) bool { return c == callerNoSnap && at < 8300*ms }, evs,
			report.Outside, scenarios.RealRoundRobin + ": failed share of the calls due to end before the registry is back"},
		{"the restarted real client never recovers", func(c string, at time.Duration) bool {
			return cold(c) && (at < 8300*ms || c == scenarios.RealPickFirst)
		}, evs, report.Outside, scenarios.RealPickFirst + ": first success ends after the registry is back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scentest.WantVerdict(t, scentest.Judge(s, mkHistory(mk(tc.fail), 12*time.Second, tc.evs...)), tc.verdict, tc.check)
		})
	}
}

// jitterOps builds the four callers at 40/s for d; refreshes are keep's
// refresh answers (end time and instances listed).
func jitterOps(d time.Duration, fail func(c string, at time.Duration) bool, refreshes map[time.Duration]int, registrations ...int) []history.Op {
	ops := scentest.Synth(append(jitterNames(), scenarios.RealRoundRobin, scenarios.RealPickFirst), 40, d, fail)
	for end, n := range refreshes {
		ops = append(ops, history.Op{Caller: "keep" + caller.RefreshSuffix, Scheduled: end - 5*ms, Start: end - 5*ms, End: end, Count: n})
	}
	for i, n := range registrations {
		ops = append(ops, history.Op{Caller: opRegistrations, Target: string(rune('a' + i)), Count: n, Scheduled: d, Start: d, End: d})
	}
	return ops
}

func TestRegistryJitterJudge(t *testing.T) {
	def := scentest.MustConfigure(t, "registry-jitter").(*registryJitter)
	ttl10 := scentest.MustConfigure(t, "registry-jitter", "--ttl", "10s").(*registryJitter)
	start, end := ev(2*time.Second, history.BlackholeLinks, history.Inject), ev(20*time.Second, history.BlackholeLinks, history.Heal)
	const d = 27 * time.Second
	naive := func(c string, at time.Duration) bool {
		return c == "naive" && at >= 3*time.Second && at < 20*time.Second
	}
	keepEmpty := func(c string, at time.Duration) bool {
		return naive(c, at) || (c == "keep" && at >= 20*time.Second && at < 20900*ms)
	}
	emptyThenBack := map[time.Duration]int{20 * time.Second: 0, 20900 * ms: 3}
	tests := []struct {
		name    string
		s       *registryJitter
		ops     []history.Op
		verdict report.Verdict
		check   string
	}{
		{"article shape (ttl 20 s: nothing expires)", def, jitterOps(d, naive, nil, 1, 1, 1), report.Reproduced, ""},
		{"ttl 10 s: keep fails while the registry answers empty", ttl10, jitterOps(d, keepEmpty, emptyThenBack, 2, 2, 2), report.Reproduced, ""},
		// Must fail: naive unharmed, keep failing during the jitter or long after an empty answer, leases that should have expired.
		{"naive does not fail during the jitter", def, jitterOps(d, func(string, time.Duration) bool { return false }, nil, 1, 1, 1), report.Outside,
			"naive: failed share of the jitter after its first failed refresh"},
		{"keep fails during the jitter", def, jitterOps(d, func(c string, at time.Duration) bool {
			return naive(c, at) || (c == "keep" && at >= 5*time.Second && at < 6*time.Second)
		}, nil, 1, 1, 1),
			report.Outside, "keep: failures during the jitter"},
		{"keep fails far longer than empty", ttl10, jitterOps(d, func(c string, at time.Duration) bool {
			return naive(c, at) || (c == "keep" && at >= 20*time.Second && at < 23*time.Second)
		}, emptyThenBack, 2, 2, 2), report.Outside, "keep: failures after the jitter = rate × time its list was empty"},
		{"ttl 10 s but no instance registered again", ttl10, jitterOps(d, keepEmpty, emptyThenBack, 1, 1, 1), report.Outside, "instances that registered again"},
		{"the real client fails during the jitter", def, jitterOps(d, func(c string, at time.Duration) bool {
			return naive(c, at) || (c == scenarios.RealRoundRobin && at >= 5*time.Second && at < 6*time.Second)
		}, nil, 1, 1, 1), report.Outside, scenarios.RealRoundRobin + ": failures during the jitter"},
		{"the real client fails after the jitter with no lease expired", def, jitterOps(d, func(c string, at time.Duration) bool {
			return naive(c, at) || (c == scenarios.RealPickFirst && at >= 20*time.Second && at < 21*time.Second)
		}, nil, 1, 1, 1), report.Outside, scenarios.RealPickFirst + ": failures after the jitter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scentest.WantVerdict(t, scentest.Judge(tc.s, mkHistory(tc.ops, d, start, end)), tc.verdict, tc.check)
		})
	}
	if res := scentest.Judge(def, mkHistory(jitterOps(d, naive, nil), d, start)); res.Verdict != report.Invalid {
		t.Errorf("a jitter that never healed: verdict %s, want invalid", res.Verdict)
	}
}

// partitionHistory is a minority-partition run as etcd's rules predict it.
func partitionHistory(lin history.Outcome, linTook time.Duration, serKeys int) *history.History {
	at := 3200 * ms
	op := func(name string, took time.Duration, o history.Outcome, n int) history.Op {
		return history.Op{Caller: name, Scheduled: at, Start: at, End: at + took, Outcome: o, Count: n}
	}
	ops := []history.Op{
		{Caller: opMajLeader, Start: 2 * time.Second, End: at, Outcome: history.OK, Value: "n2"},
		op(opMajPut, 5*ms, history.OK, 0), op(opMajKeepalive, 3*ms, history.OK, 0),
		op(opIsoSerRead, ms, history.OK, serKeys), op(opIsoLinRead, linTook, lin, 0), op(opIsoPut, 2002*ms, history.Unknown, 0),
		{Caller: opCaughtUp, Start: 8 * time.Second, End: 8150 * ms, Outcome: history.OK, Count: 1},
	}
	return mkHistory(ops, 8150*ms, ev(2*time.Second, history.PartitionMember, history.Inject, "n1"), ev(8*time.Second, history.PartitionMember, history.Heal, "n1"))
}

func TestMinorityPartitionJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "minority-partition").(*minorityPartition)
	tests := []struct {
		name    string
		h       *history.History
		verdict report.Verdict
		check   string
	}{
		{"article shape", partitionHistory(history.Unknown, 2002*ms, 0), report.Reproduced, ""},
		// Must fail: an instant error is not a timeout; a read that succeeds without quorum; a current serializable read.
		{"linearizable read fails at once", partitionHistory(history.Fail, 10*ms, 0), report.Outside, "isolated: linearizable read: time to fail"},
		{"linearizable read succeeds", partitionHistory(history.OK, 3*ms, 0), report.Outside, "isolated: linearizable read"},
		{"serializable read is current", partitionHistory(history.Unknown, 2002*ms, 1), report.Outside, "isolated: serializable read is stale"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { scentest.WantVerdict(t, scentest.Judge(s, tc.h), tc.verdict, tc.check) })
	}
	h := partitionHistory(history.Unknown, 2002*ms, 0)
	h.Events = h.Events[:1]
	if res := scentest.Judge(s, h); res.Verdict != report.Invalid {
		t.Errorf("a partition never mended: verdict %s, want invalid", res.Verdict)
	}
}

// stormT0 is the synthetic run's time zero.
var stormT0 = time.Unix(1_700_000_000, 0)

// stormMember samples one member every 100 ms from 1 s before heal to end;
// perBucket(b) calls start in the b-th 100 ms after the heal (answered OK
// but errs of them), and the member sees changes leader changes from then on.
func stormMember(name string, heal, end time.Duration, perBucket func(b int) float64, errFrac float64, changes float64) cluster.MemberMetrics {
	m := cluster.MemberMetrics{Name: name}
	total := 0.0
	for at := heal - time.Second; at <= end; at += 100 * ms {
		if at > heal {
			total += perBucket(int((at-heal)/(100*ms)) - 1)
		}
		c := cluster.MetricSample{T: stormT0.Add(at).UnixNano(), Started: total, HandledOK: (1 - errFrac) * total, HandledErr: errFrac * total, HasLeader: 1,
			Duration: cluster.Histogram{Count: total, Sum: 0.01 * total, Bounds: []float64{0.008, 0.016}, Counts: []float64{0, total}}}
		if at > heal {
			c.LeaderChanges = changes
		}
		m.Samples = append(m.Samples, c)
	}
	return m
}

type stormShape struct {
	perBucket func(b int) float64
	back      int
	errors    int
	changes   float64
	errFrac   float64 // share of the calls the registry answers with an error
}

// stormHistory builds a storm run at n with the two strategies' shapes.
func stormHistory(n int, imm, jit stormShape) *history.History {
	rec := stormRecord{T0: stormT0.UnixNano(), Settle: time.Minute}
	var ops []history.Op
	var evs history.Events
	for i, sh := range []stormShape{imm, jit} {
		strategy := []string{"immediate", "jitter"}[i]
		start := time.Duration(3+30*i) * time.Second
		heal, end := start+17*time.Second, start+22*time.Second
		p := stormPhase{N: n, Clients: n, Strategy: strategy, Start: start, End: end, Back: sh.back, Last: time.Second,
			Calls: storm.Summary{Calls: 2 * n, Errors: sh.errors}}
		for j := 1; j <= 3; j++ {
			p.Members = append(p.Members, stormMember("n"+string(rune('0'+j)), heal, end, sh.perBucket, sh.errFrac, sh.changes))
		}
		rec.Phases = append(rec.Phases, p)
		evs = append(evs, ev(start, history.BlackholeLinks, history.Inject), ev(heal, history.BlackholeLinks, history.Heal))
		for _, name := range []string{opListed, opLeft, opKeysAfter} {
			c := map[string]int{opListed: n, opKeysAfter: n}[name]
			ops = append(ops, history.Op{Caller: name, Target: p.id(), Start: heal, End: heal, Count: c, Outcome: history.OK})
		}
	}
	h := mkHistory(ops, 60*time.Second, evs...)
	if err := h.SetData(rec); err != nil {
		panic(err)
	}
	return h
}

func burst(first float64) func(int) float64 {
	return func(b int) float64 {
		if b < 3 {
			return first
		}
		return 10
	}
}

func spread(per float64) func(int) float64 {
	return func(b int) float64 {
		if b < 10 {
			return per
		}
		return 10
	}
}

func TestReregistrationStormJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "reregistration-storm").(*reregistrationStorm)
	imm := stormShape{perBucket: burst(600), back: 1000}
	jit := stormShape{perBucket: spread(70), back: 1000}
	tests := []struct {
		name     string
		imm, jit stormShape
		verdict  report.Verdict
		check    string
	}{
		{"article shape: jitter spreads the storm", imm, jit, report.Reproduced, ""},
		{"the immediate storm knocks the registry over (reported, not judged)", stormShape{perBucket: burst(600), back: 1000, changes: 1}, jit, report.Reproduced, ""},
		// Must fail: jitter as spiky as immediate, fewer back, more failures, the registry falling over under it.
		{"jitter's peak as high as immediate's", imm, stormShape{perBucket: burst(580), back: 1000}, report.Outside,
			"@1000: registry's peak calls received per 100 ms, jitter ÷ immediate"},
		{"jitter brings fewer back", imm, stormShape{perBucket: spread(70), back: 900}, report.Outside, "@1000: registrants back within --duration, jitter − immediate"},
		{"jitter fails more calls", imm, stormShape{perBucket: spread(70), back: 1000, errors: 5}, report.Outside, "@1000: failed registration calls (registrants' side), jitter − immediate"},
		{"the registry answers more calls with an error under jitter", imm, stormShape{perBucket: spread(70), back: 1000, errFrac: 0.2}, report.Outside,
			"@1000: calls the registry answered with an error, jitter − immediate"},
		{"the registry falls over under jitter", imm, stormShape{perBucket: spread(70), back: 1000, changes: 2}, report.Outside,
			"@1000: the registry fell over under the jitter storm (leader changes, members leaderless or lost, not serving)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(s, stormHistory(1000, tc.imm, tc.jit))
			scentest.WantVerdict(t, res, tc.verdict, tc.check)
			scentest.Between(t, res, "immediate.registry.peak_per_100ms", 1800, 1800)
		})
	}
	h := stormHistory(1000, imm, jit)
	for i, op := range h.Ops {
		if op.Caller == opListed && op.Target == "1000/jitter" {
			h.Ops[i].Count = 700
		}
	}
	if res := scentest.Judge(s, h); res.Verdict != report.Invalid {
		t.Errorf("a registry that held 700 of 1000 keys before the loss: verdict %s, want invalid", res.Verdict)
	}
	h = stormHistory(1000, imm, jit)
	var rec stormRecord
	if err := h.DataInto(&rec); err != nil {
		t.Fatal(err)
	}
	rec.Phases[1].Members = nil
	if err := h.SetData(rec); err != nil {
		t.Fatal(err)
	}
	if res := scentest.Judge(s, h); res.Verdict != report.Invalid {
		t.Errorf("a phase without the members' samples: verdict %s, want invalid", res.Verdict)
	}
}

// TestRegistryJitterJudgeUnderPacketLoss judges the jitter made of dropped
// packets (--net private): at a loss of 1 as the blackhole; below 1 naive
// is reported, not judged, while what the rules predict still is — and
// fails when the effect is absent.
func TestRegistryJitterJudgeUnderPacketLoss(t *testing.T) {
	full := scentest.MustConfigure(t, "registry-jitter").(*registryJitter)
	lossy := scentest.MustConfigure(t, "registry-jitter").(*registryJitter)
	lossy.Loss = 0.3
	short := scentest.MustConfigure(t, "registry-jitter", "--jitter", "6s", "--after", "7s").(*registryJitter)
	short.Loss = 0.3
	const d = 27 * time.Second
	start, end := ev(2*time.Second, history.PacketDropClients, history.Inject), ev(20*time.Second, history.PacketDropClients, history.Heal)
	naiveAll := func(c string, at time.Duration) bool {
		return c == "naive" && at >= 3*time.Second && at < 20*time.Second
	}
	// Under partial loss naive fails only while a failed refresh left its list empty.
	naivePart := func(c string, at time.Duration) bool { return naiveAll(c, at) && (at/time.Second)%3 == 0 }
	or := func(f func(string, time.Duration) bool, name string, from, to time.Duration) func(string, time.Duration) bool {
		return func(c string, at time.Duration) bool { return f(c, at) || (c == name && at >= from && at < to) }
	}
	tests := []struct {
		name    string
		s       *registryJitter
		ops     []history.Op
		verdict report.Verdict
		check   string
	}{
		{"loss 1: as the blackhole", full, jitterOps(d, naiveAll, nil, 1, 1, 1), report.Reproduced, ""},
		{"loss 0.3: naive fails part of the time (reported)", lossy, jitterOps(d, naivePart, nil, 1, 1, 1), report.Reproduced, ""},
		{"loss 0.3, a lease expired: keep's and the real clients' failures reported", lossy,
			jitterOps(d, or(or(naivePart, "keep", 9*time.Second, 10*time.Second), scenarios.RealRoundRobin, 9*time.Second, 10*time.Second), nil, 2, 1, 1),
			report.Reproduced, ""},
		// Must fail: what the rules predict under partial loss, absent.
		{"loss 0.3: keep fails during the jitter", lossy, jitterOps(d, or(naivePart, "keep", 5*time.Second, 6*time.Second), nil, 1, 1, 1),
			report.Outside, "keep: failures during the jitter"},
		{"loss 0.3: stale_fallback fails during the jitter", lossy, jitterOps(d, or(naivePart, "stale_fallback", 5*time.Second, 6*time.Second), nil, 1, 1, 1),
			report.Outside, "stale_fallback: failures during the jitter"},
		{"loss 0.3: a real client fails with no lease expired", lossy, jitterOps(d, or(naivePart, scenarios.RealPickFirst, 5*time.Second, 6*time.Second), nil, 1, 1, 1),
			report.Outside, scenarios.RealPickFirst + ": failures during the jitter"},
		{"loss 0.3: naive still failing at the end", lossy, jitterOps(d, or(naivePart, "naive", 26*time.Second, d), nil, 1, 1, 1),
			report.Outside, "naive: seconds not all ok in the last second"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(tc.s, mkHistory(tc.ops, d, start, end))
			scentest.WantVerdict(t, res, tc.verdict, tc.check)
			if tc.s.lossy() && scentest.Verdict(res, "naive: failed share of the jitter after its first failed refresh") != "" {
				t.Error("naive's share judged under partial loss")
			}
		})
	}
	// A lease that expired where none may (6 s of loss, ttl 20 s): outside, even under partial loss.
	res := scentest.Judge(short, mkHistory(jitterOps(15*time.Second, func(string, time.Duration) bool { return false }, nil, 2, 1, 1), 15*time.Second,
		ev(2*time.Second, history.PacketDropClients, history.Inject), ev(8*time.Second, history.PacketDropClients, history.Heal)))
	scentest.WantVerdict(t, res, report.Outside, "instances that registered again")
}

// withKind returns h with every event of kind from turned into kind to.
func withKind(h *history.History, from, to history.EventKind) *history.History {
	for i, e := range h.Events {
		if e.Kind == from {
			h.Events[i].Kind = to
		}
	}
	return h
}

// caughtUpAt moves the healed member's catch-up to end at t (the run's end).
func caughtUpAt(h *history.History, t time.Duration) *history.History {
	for i, op := range h.Ops {
		if op.Caller == opCaughtUp {
			h.Ops[i].End = t
		}
	}
	h.Timeline = t
	return h
}

// TestMinorityPartitionJudgeWithPackets judges the cut made of dropped
// packets: the same bands, a rejoin band that follows TCP's back-off (a
// late rejoin that CutPeer would not explain is in it, a later one not),
// and no stale-read verdict for a one-way drop.
func TestMinorityPartitionJudgeWithPackets(t *testing.T) {
	s := scentest.MustConfigure(t, "minority-partition").(*minorityPartition)
	oneWay := scentest.MustConfigure(t, "minority-partition", "--one-way").(*minorityPartition)
	packets := func(lin history.Outcome, linTook time.Duration, serKeys int) *history.History {
		return withKind(partitionHistory(lin, linTook, serKeys), history.PartitionMember, history.PacketDropPeers)
	}
	tests := []struct {
		name    string
		s       *minorityPartition
		h       *history.History
		verdict report.Verdict
		check   string
	}{
		{"packets: article shape", s, packets(history.Unknown, 2002*ms, 0), report.Reproduced, ""},
		{"packets: rejoined 5 s after a 6 s cut (TCP back-off)", s, caughtUpAt(packets(history.Unknown, 2002*ms, 0), 13*time.Second), report.Reproduced, ""},
		{"packets one way: the member saw the new key (not judged)", oneWay, packets(history.Unknown, 2002*ms, 1), report.Reproduced, ""},
		// Must fail: the same rejoin after CutPeer, a rejoin beyond the back-off, a read served without quorum.
		{"raft: rejoined 5 s after the mend", s, caughtUpAt(partitionHistory(history.Unknown, 2002*ms, 0), 13*time.Second), report.Outside,
			"healed: time until the isolated member serves the new key"},
		{"packets: rejoined 9.5 s after a 6 s cut", s, caughtUpAt(packets(history.Unknown, 2002*ms, 0), 17500*ms), report.Outside,
			"healed: time until the isolated member serves the new key"},
		{"packets one way: linearizable read succeeds", oneWay, packets(history.OK, 3*ms, 0), report.Outside, "isolated: linearizable read"},
		{"packets: serializable read is current", s, packets(history.Unknown, 2002*ms, 1), report.Outside, "isolated: serializable read is stale"},
		{"raft one way: serializable read is current", oneWay, partitionHistory(history.Unknown, 2002*ms, 1), report.Outside, "isolated: serializable read is stale"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(tc.s, tc.h)
			scentest.WantVerdict(t, res, tc.verdict, tc.check)
			if tc.s.OneWay && tc.h.Events[0].Kind == history.PacketDropPeers && scentest.Verdict(res, "isolated: serializable read is stale") != "" {
				t.Error("a one-way packet drop's serializable read judged stale")
			}
		})
	}
}

// TestReregistrationStormSamplingGate: members' samples too far apart to
// resolve the storm, or ending before the last registrant was back, make
// the run invalid, not outside or reproduced.
func TestReregistrationStormSamplingGate(t *testing.T) {
	s := scentest.MustConfigure(t, "reregistration-storm").(*reregistrationStorm)
	thin := func(m *cluster.MemberMetrics, every int) {
		var kept []cluster.MetricSample
		for i, smp := range m.Samples {
			if i%every == 0 {
				kept = append(kept, smp)
			}
		}
		m.Samples = kept
	}
	tests := []struct {
		name   string
		change func(*stormRecord)
		ok     bool
	}{
		{"samples every 100 ms until after the last registrant", func(*stormRecord) {}, true},
		{"a member sampled every 400 ms (limit 500 ms)", func(r *stormRecord) { thin(&r.Phases[0].Members[1], 4) }, true},
		{"a starved member sampled every 600 ms", func(r *stormRecord) { thin(&r.Phases[0].Members[1], 6) }, false},
		{"the last registrant back after the samples end", func(r *stormRecord) { r.Phases[1].Last = 6 * time.Second }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := stormHistory(1000, stormShape{perBucket: burst(600), back: 1000}, stormShape{perBucket: spread(70), back: 1000})
			var rec stormRecord
			if err := h.DataInto(&rec); err != nil {
				t.Fatal(err)
			}
			tc.change(&rec)
			if err := h.SetData(rec); err != nil {
				t.Fatal(err)
			}
			res := scentest.Judge(s, h)
			if got := report.GatesOK(res.Gates); got != tc.ok || (res.Verdict == report.Invalid) == tc.ok {
				t.Errorf("gates ok %v (verdict %s), want %v: %v", got, res.Verdict, tc.ok, res.Gates)
			}
		})
	}
}
