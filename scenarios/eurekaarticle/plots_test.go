package eurekaarticle

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"sdchaos/figure"
	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/eureka"
)

// TestPlotsOfTheEurekaRoom renders each scenario's plot from the judge
// tests' synthetic histories: the series and the faults shaded on a model
// time axis.
func TestPlotsOfTheEurekaRoom(t *testing.T) {
	skew := scentest.MustConfigure(t, "clock-skew").(*clockSkew)
	tests := []struct {
		scenario, figure string
		args             []string
		history          func(t *testing.T) *history.History
		texts            []string
		shaded           int // every window's shading and its bar, on every panel
	}{
		{"eureka-failover", "failover", nil, func(t *testing.T) *history.History {
			return failoverHistory(t, failoverCase{switchAfter: [2]time.Duration{9 * time.Second, 24 * time.Second}, attempts: 2, listed: 50})
		}, []string{"Registry fetches of each scheduler around the kill", "fetch 15s", "fetch 30s", "answered by its server",
			"answered by the next server after a failed attempt", "fetch 15s: ok", "fetch 30s: failed", "kill-eureka-server",
			"band: next fetch tick, 0 … fetch + 1 s", "article: about 15–30 s", "measured"}, 4},
		{"self-preservation", "self-preservation", nil, func(t *testing.T) *history.History {
			return spHistory(t, spCase{engageAfter: time.Minute, deadGoneAt: spHeal + 150*time.Second})
		}, []string{"renewals in the last full minute", "threshold (expected × 0.85)", "self-preservation: eviction refused",
			"partition-eureka-clients…", "crash-eureka-workers", "on-s1", "off-s3", "Workers evicted by each eviction run…", spXLabel}, 14},
		{"eureka-drill", "drill", []string{"--workers", "50"}, func(t *testing.T) *history.History {
			return drillHistory(t, drillCase{fail: map[int]func(int) bool{0: every(240, 1200, 0), 1: every(44, 1200, 0), 3: every(1, 1200, 0)}})
		}, []string{"exact: 1 − C(10, R+1)/C(50, R+1)", "independent picks: 1 − (10/50)^(R+1)", "article: above 99 % with at least 3 retries",
			"measured (Wilson 95 % interval)", "R = 0", "R = 3", "kill-eureka-server", "crash-eureka-workers", "delay-eureka-servers"}, 6},
		{"replication-lag", "visibility", nil, func(t *testing.T) *history.History {
			return lagHistory(t, lagCase{peerDelay: 600 * time.Millisecond, cacheDelay: 40 * time.Second})
		}, []string{"peer s2", "peer s3", "client 1 → s2", "client 2 → s3", "band: batching delay + 250 ms", "article: a delta every 30 s",
			"slowest of all clients: the value the band judges"}, 0},
		{"clock-skew", "false-evictions", nil, func(t *testing.T) *history.History {
			return skewHistory(t, skew, skewSynth{evicted: map[string]int{"bug-on": 0, "bug-off": 0, "fixed-on": 8, "fixed-off": 8}})
		}, []string{"evicted by the stepped s1", "evicted or cancelled on its peers", "predicted by the lease rule",
			"the clock of each cluster's s1 steps +2m (4 clusters, within 0.0 model s)", "fixed-on s1"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			cfg := scentest.MustConfigure(t, tc.scenario, tc.args...)
			plots, err := cfg.(scenarios.Plotter).Plots(tc.history(t))
			if err != nil {
				t.Fatal(err)
			}
			d := figuretest.One(t, figuretest.Render(t, plots), tc.figure)
			d.Has(t, tc.texts...)
			d.AtLeastShaded(t, tc.shaded)
		})
	}
}

// The panel titles of the self-preservation figure.
const (
	spOnTitle    = "Self-preservation on: renewals in the last minute vs the threshold (on-s1)"
	spOffTitle   = "Self-preservation off: renewals in the last minute vs the threshold (off-s1)"
	spSizeTitle  = "Workers listed by each server after its eviction run (50 workers per cluster)"
	spEvictTitle = "Workers evicted by each eviction run, self-preservation off (the servers overlap; \"on\" evicted none)"
)

// TestSelfPreservationShadesEachClusterInItsPanels: the worker that dies
// belongs to "on" (its event's Cluster): its window is drawn in the panel
// of "on" and in the panel of both clusters, never in the two panels of
// "off"; each partition only in its cluster's panels; where windows
// overlap they are striped, never blended; and the x axis counts model
// minutes from the partition, as the tables do.
func TestSelfPreservationShadesEachClusterInItsPanels(t *testing.T) {
	h := spHistory(t, spCase{engageAfter: time.Minute, deadGoneAt: spHeal + 150*time.Second})
	plots, err := scentest.MustConfigure(t, "self-preservation").(scenarios.Plotter).Plots(h)
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, plots), "self-preservation")
	titles := []string{spOnTitle, spOffTitle, spSizeTitle, spEvictTitle}
	crash, partition := string(eureka.EventCrashWorkers), string(eureka.EventPartitionClients)
	for _, tc := range []struct {
		title      string
		crash      bool
		partitions int
	}{{spOnTitle, true, 1}, {spOffTitle, false, 1}, {spSizeTitle, true, 2}, {spEvictTitle, false, 1}} {
		texts := d.Panel(t, tc.title, titles...)
		if got := slices.Contains(texts, crash); got != tc.crash {
			t.Errorf("panel %q shows the crash of the 'on' worker: %v, want %v", tc.title, got, tc.crash)
		}
		if want := strings.Repeat("; "+partition, tc.partitions)[2:]; !slices.Contains(texts, want) {
			t.Errorf("panel %q does not show the partition of its cluster(s) alone (%q): %q", tc.title, want, texts)
		}
		if !slices.Contains(texts, spXLabel) {
			t.Errorf("panel %q does not count from the partition: no axis %q", tc.title, spXLabel)
		}
	}
	if n := d.MostShaded(); n != 1 {
		t.Errorf("%d window fills lie on top of each other at one point, want 1 (overlaps striped)", n)
	}
	for _, p := range plots[0].Panels[1:] { // minute 0 at one place in every panel
		if first := plots[0].Panels[0]; p.X.Min != first.X.Min || p.X.Max != first.X.Max {
			t.Errorf("panel %q spans %g … %g minutes, the first %g … %g", p.Title.Text, p.X.Min, p.X.Max, first.X.Min, first.X.Max)
		}
	}
	s := scentest.MustConfigure(t, "self-preservation").(*selfPreservation)
	m, _ := s.measure(h)
	ws, _ := m.data.windowsSince(figure.InCluster(h.Events, clusterOff), time.Minute, m.partAt)
	if len(ws) != 1 || math.Abs(ws[0].From) > 1e-9 || math.Abs(ws[0].To-20) > 1e-6 {
		t.Errorf("the windows of 'off' = %+v, want its partition alone, from 0 to 20 model minutes after the partition", ws)
	}
}

// TestFailoverDrawsBothSchedulersWhereTheyCoincide: the two schedulers
// send alike, so their task lines coincide; the first is drawn wider than
// the second, which would otherwise hide it.
func TestFailoverDrawsBothSchedulersWhereTheyCoincide(t *testing.T) {
	h := failoverHistory(t, failoverCase{switchAfter: [2]time.Duration{9 * time.Second, 24 * time.Second}, attempts: 2, listed: 50})
	plots, err := scentest.MustConfigure(t, "eureka-failover").(scenarios.Plotter).Plots(h)
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, plots), "failover")
	widest := map[string]float64{}
	for _, sh := range d.Shapes() {
		widest[sh.Stroke] = math.Max(widest[sh.Stroke], sh.StrokeWidth)
	}
	first, second := widest[figuretest.Hex(figure.Color(0))], widest[figuretest.Hex(figure.Color(1))]
	if !(first > second+1) {
		t.Errorf("the first scheduler's lines are %.1f points wide, the second's %.1f: the second hides the first", first, second)
	}
}
