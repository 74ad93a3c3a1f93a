package nacosincident

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// nacosShape is one synthetic phase: when the server listed none (from the
// fault), each link's heal delay, and when each instance was listed again
// after its link's heal.
type nacosShape struct {
	emptyAt    time.Duration
	delays     func(i int) time.Duration
	relistLag  time.Duration
	unready    int // readiness failures after the heal
	listedFrom int // instances listed before the fault
}

const (
	synthN     = 200
	synthFault = 5 * time.Second
	synthLoss  = 40 * time.Second
)

// synthPhase builds a phase of shape sh starting at base.
func synthPhase(st string, base time.Duration, sh nacosShape) nacosStormPhase {
	p := nacosStormPhase{Strategy: st, ServerStart: 30 * time.Second, Listed: base, FaultAt: base + synthFault}
	heal := p.FaultAt + synthLoss
	listedAt := make([]time.Duration, synthN)
	for i := range synthN {
		p.HealAt = append(p.HealAt, heal+sh.delays(i))
		listedAt[i] = heal + sh.delays(i) + sh.relistLag
		p.Registrations = append(p.Registrations, firstRegistration{Start: base - time.Second, End: base - 900*time.Millisecond})
	}
	p.End = heal + 5*time.Second + 20*time.Second
	for t := base; t < p.End; t += 100 * time.Millisecond {
		n := sh.listedFrom
		if t >= p.FaultAt+sh.emptyAt {
			n = 0
			for _, at := range listedAt {
				n += b2i(at <= t)
			}
		}
		p.Server = append(p.Server, listSample{At: t, Count: n, Healthy: n})
	}
	k := 0
	for t := base; t < p.End; t += 500 * time.Millisecond {
		pr := serverProbe{At: t, CPU: time.Duration(k) * 100 * time.Millisecond, RSS: 300 << 20}
		if t >= heal && k%2 == 0 && sh.unready > 0 {
			pr.ReadyErr, sh.unready = "readiness of nacos: timeout", sh.unready-1
		}
		p.Probes = append(p.Probes, pr)
		k++
	}
	return p
}

// synthStorm is a run of the two shapes as the world records it: each
// phase's faults one blackhole per link on the timeline (the phase its
// cluster), healed at the link's own time.
func synthStorm(t *testing.T, imm, jit nacosShape) *history.History {
	t.Helper()
	d := synthData(imm, jit)
	var h history.History
	for i := range d.Phases {
		p := &d.Phases[i]
		for k, heal := range p.HealAt {
			e := history.Event{At: p.FaultAt, Kind: history.BlackholeLinks, Targets: []string{fmt.Sprintf("instance-%d", k)}, Cluster: p.Strategy}
			in, out := e, e
			in.Phase, out.Phase, out.At = history.Inject, history.Heal, heal
			h.Events = append(h.Events, in, out)
		}
		h.Timeline = max(h.Timeline, p.End)
		p.FaultAt, p.HealAt = 0, nil
	}
	sort.SliceStable(h.Events, func(i, j int) bool { return h.Events[i].At < h.Events[j].At })
	if err := h.SetData(d); err != nil {
		t.Fatal(err)
	}
	return &h
}

// legacyStorm is the same run as the world recorded it before the
// timeline fired its faults: every link's heal in the data, one blackhole
// and its heal per phase as events.
func legacyStorm(t *testing.T, imm, jit nacosShape) *history.History {
	t.Helper()
	d := synthData(imm, jit)
	h := history.History{Events: stormMarks(d.Phases)}
	for _, p := range d.Phases {
		h.Timeline = max(h.Timeline, p.End)
	}
	if err := h.SetData(d); err != nil {
		t.Fatal(err)
	}
	return &h
}

// synthData is the data of a run of the two shapes, each phase's faults in it.
func synthData(imm, jit nacosShape) stormData {
	d := stormData{Instances: synthN, Loss: synthLoss, Spread: 5 * time.Second, SamplePeriod: 100 * time.Millisecond, ProbePeriod: 500 * time.Millisecond}
	d.Phases = append(d.Phases, synthPhase(stormImmediate, 0, imm), synthPhase(stormJitter, 120*time.Second, jit))
	return d
}

// TestNacosStormJudgesTheOldFormatAlike: a history whose faults are in its
// data (recorded before the timeline fired them) is judged as the same
// run recorded now.
func TestNacosStormJudgesTheOldFormatAlike(t *testing.T) {
	s := scentest.MustConfigure(t, "nacos-storm").(*nacosStorm)
	imm := nacosShape{emptyAt: 26 * time.Second, delays: atOnce, relistLag: 2 * time.Second, listedFrom: synthN}
	jit := withShape(imm, func(s *nacosShape) { s.delays = spreadOver })
	now, old := scentest.Judge(s, synthStorm(t, imm, jit)), scentest.Judge(s, legacyStorm(t, imm, jit))
	sameJudgement(t, now, old)
	if len(now.Events) != 4 || now.Events[3].Label != old.Events[3].Label {
		t.Errorf("marks %+v, want the old format's %+v", now.Events, old.Events)
	}
}

func atOnce(int) time.Duration { return 0 }

func spreadOver(i int) time.Duration { return time.Duration(i) * 5 * time.Second / synthN }

func TestNacosStormJudge(t *testing.T) {
	s := scentest.MustConfigure(t, "nacos-storm").(*nacosStorm)
	imm := nacosShape{emptyAt: 26 * time.Second, delays: atOnce, relistLag: 2 * time.Second, listedFrom: synthN}
	jit := nacosShape{emptyAt: 26 * time.Second, delays: spreadOver, relistLag: 2 * time.Second, listedFrom: synthN}
	tests := []struct {
		name     string
		imm, jit nacosShape
		verdict  report.Verdict
		check    string
	}{
		{"the rules' shape: removed, re-listed within the bound, jitter flatter", imm, jit, report.Reproduced, ""},
		{"a server faltering after the heal is reported, not judged", withShape(imm, func(s *nacosShape) { s.unready = 3 }), jit, report.Reproduced, ""},
		// Must fail: each check on its own.
		{"jitter spikier than immediate", jit, withShape(jit, func(s *nacosShape) { s.delays = atOnce }), report.Outside,
			"jitter: peak re-registrations per 100ms ≤ immediate's"},
		{"re-listed too late", withShape(imm, func(s *nacosShape) { s.relistLag = 12 * time.Second }), jit, report.Outside,
			"immediate: every instance listed again, after the first heal"},
		{"listed none too early", imm, withShape(jit, func(s *nacosShape) { s.emptyAt = 10 * time.Second }), report.Outside,
			"jitter: listed no instance, after the loss began"},
		{"an instance removed too early", withShape(imm, func(s *nacosShape) { s.emptyAt = 12 * time.Second }), jit, report.Outside,
			"immediate: first instance removed, after the loss began"},
		{"an instance listed before its link healed", imm, withShape(jit, func(s *nacosShape) { s.relistLag = -time.Second }), report.Outside,
			"jitter: most instances listed beyond the links healed by then"},
		{"never emptied", withShape(imm, func(s *nacosShape) { s.emptyAt = time.Hour }), jit, report.Outside,
			"immediate: removed every instance during the loss (listed none)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := scentest.Judge(s, synthStorm(t, tc.imm, tc.jit))
			scentest.WantVerdict(t, res, tc.verdict, tc.check)
		})
	}
}

func TestNacosStormGates(t *testing.T) {
	s := scentest.MustConfigure(t, "nacos-storm").(*nacosStorm)
	imm := nacosShape{emptyAt: 26 * time.Second, delays: atOnce, relistLag: 2 * time.Second, listedFrom: synthN}
	jit := withShape(imm, func(s *nacosShape) { s.delays = spreadOver })
	if res := scentest.Judge(s, synthStorm(t, withShape(imm, func(s *nacosShape) { s.listedFrom = 150 }), jit)); res.Verdict != report.Invalid {
		t.Errorf("a server listing 150 of 200 before the fault: verdict %s, want invalid", res.Verdict)
	}
	h := synthStorm(t, imm, jit)
	var d stormData
	if err := h.DataInto(&d); err != nil {
		t.Fatal(err)
	}
	d.Phases[1].Registrations[3].Err = "registering: the server said no"
	if err := h.SetData(d); err != nil {
		t.Fatal(err)
	}
	if res := scentest.Judge(s, h); res.Verdict != report.Invalid {
		t.Errorf("a failed first registration: verdict %s, want invalid", res.Verdict)
	}
	if res := scentest.Judge(s, &history.History{}); res.Verdict != report.Invalid {
		t.Errorf("no data: verdict %s, want invalid", res.Verdict)
	}
}

func TestNacosStormValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "nacos-storm", Args: nil, WantErr: ""},
		{Scenario: "nacos-storm", Args: []string{"--instances", "0"}, WantErr: "--instances (0)"},
		{Scenario: "nacos-storm", Args: []string{"--spread", "0s"}, WantErr: "--spread (0s)"},
		{Scenario: "nacos-storm", Args: []string{"--after", "1s"}, WantErr: "raise --after"},
		{Scenario: "nacos-storm", Args: []string{"--duration", "30s"}, WantErr: "--duration (30s)"},
		{Scenario: "nacos-storm", Args: []string{"--port-base", "60000"}, WantErr: "leaves no room"},
	})
}

func TestJitterDelaysAreSeededAndInRange(t *testing.T) {
	a := jitterDelays(randFor(7), 50, 5*time.Second)
	b := jitterDelays(randFor(7), 50, 5*time.Second)
	for i := range a {
		if a[i] != b[i] || a[i] < 0 || a[i] >= 5*time.Second {
			t.Fatalf("delay %d: %s and %s (want equal, within [0, 5s))", i, a[i], b[i])
		}
	}
}

func randFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

func withShape(s nacosShape, f func(*nacosShape)) nacosShape { f(&s); return s }

// TestNacosStormLimitChecks: under --cpu-limit the article's claim (the immediate storm knocked
// the server over, jitter spared it) and the phases' timings (removal, re-listing, peaks) are
// reported, not judged; without a quota the timings are judged, so that a late re-listing
// still fails.
func TestNacosStormLimitChecks(t *testing.T) {
	imm := nacosShape{emptyAt: 26 * time.Second, delays: atOnce, relistLag: 2 * time.Second, listedFrom: synthN, unready: 3}
	jit := nacosShape{emptyAt: 26 * time.Second, delays: spreadOver, relistLag: 2 * time.Second, listedFrom: synthN}
	const relisted = "immediate: every instance listed again, after the first heal"
	tests := []struct {
		name     string
		limit    float64 // 0: no --cpu-limit
		imm, jit nacosShape
		verdict  report.Verdict
	}{
		{"capped: timings and the claim reported", 0.2, imm, jit, report.Reproduced},
		{"capped, listed again late: reported all the same", 0.2, withShape(imm, func(s *nacosShape) { s.relistLag = 20 * time.Second }), jit, report.Reproduced},
		{"not capped: judged", 0, imm, jit, report.Reproduced},
		// Must fail.
		{"not capped, listed again late", 0, withShape(imm, func(s *nacosShape) { s.relistLag = 20 * time.Second }), jit, report.Outside},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			if tc.limit > 0 {
				args = []string{"--cpu-limit", fmt.Sprint(tc.limit)}
			}
			s := scentest.MustConfigure(t, "nacos-storm", args...).(*nacosStorm)
			res := scentest.Judge(s, synthStorm(t, tc.imm, tc.jit))
			if res.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s: %s", res.Verdict, tc.verdict, scentest.Names(res))
			}
			capped := tc.limit > 0
			if judged := scentest.Verdict(res, relisted) != ""; judged == capped {
				t.Errorf("re-listing judged: %v under --cpu-limit %g", judged, tc.limit)
			}
			all := strings.Join(res.Conclusion, " ")
			if capped && !strings.Contains(all, "Reported, not judged: no rule says when a server held at its quota stops answering") {
				t.Errorf("the conclusion does not report the article's claim unjudged: %q", res.Conclusion)
			}
			if capped && !strings.Contains(all, "immediate: when every instance was listed again") {
				t.Errorf("the conclusion does not report the re-listing: %q", res.Conclusion)
			}
		})
	}
}
