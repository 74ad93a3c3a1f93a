package nacosarticle

import (
	"math"
	"os"
	"strings"
	"testing"

	"sdchaos/cluster"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// etcd34History is a real storm's history (testdata): `experiments
// reregistration-storm --endpoints … --instances 400 --out DIR` against
// three members of etcd 3.4.25 (etcd's own binary, built from go.etcd.io/etcd
// at v3.4.25's commit) that the harness did not start, read over their
// /metrics. Its members give each KeepAliveOnce its client cancelled code
// Unavailable ("no leader"); they export no etcd_server_request_duration_seconds.
func etcd34History(t *testing.T) (*reregistrationStorm, *history.History) {
	t.Helper()
	f, err := os.Open("testdata/reregistration-storm.etcd-3.4.25.history.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr, h, err := history.ReadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := scenarios.Lookup(hdr.Scenario)
	_, cfg, _, err := scenarios.ParseSaved(spec, hdr.Args)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.(*reregistrationStorm), h
}

// sampleEdit changes sample i of n of a member's samples in a phase.
type sampleEdit func(member string, i, n int, s *cluster.MetricSample)

// editSamples applies f to every member sample of the phases of strategy
// ("" for both) in a copy of h.
func editSamples(t *testing.T, h *history.History, strategy string, f sampleEdit) *history.History {
	t.Helper()
	out := *h
	var rec stormRecord
	if err := h.DataInto(&rec); err != nil {
		t.Fatal(err)
	}
	for _, p := range rec.Phases {
		if strategy != "" && p.Strategy != strategy {
			continue
		}
		for _, m := range p.Members {
			for i := range m.Samples {
				f(m.Name, i, len(m.Samples), &m.Samples[i])
			}
		}
	}
	if err := out.SetData(rec); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestStormOnEtcd34: the storm's verdicts on a real etcd 3.4 cluster follow
// the rules. As recorded, the registry answered no call with an error:
// the 115 and 211 LeaseKeepAlive streams that ended Unavailable were the
// registrants' KeepAliveOnce, closed by their clients on members that kept
// their leader; the serving time is said missing. Must fail: the same
// stream ends counted as errors (as before they were typed), or on a member
// that lost its leader; and a check whose figure the members do not export
// is invalid with why.
func TestStormOnEtcd34(t *testing.T) {
	const regErr = "@400: calls the registry answered with an error, jitter − immediate"
	const up = "@400: the registry fell over under the jitter storm (leader changes, members leaderless or lost, not serving)"
	const peakC = "@400: registry's peak calls received per 100 ms, jitter ÷ immediate"
	s, h := etcd34History(t)
	missing := func(fs ...cluster.Family) sampleEdit {
		return func(_ string, _, _ int, smp *cluster.MetricSample) { smp.Missing = append(smp.Missing, fs...) }
	}
	tests := []struct {
		name     string
		strategy string
		edit     sampleEdit
		want     map[string]report.Verdict
	}{
		{"as recorded", "", nil, map[string]report.Verdict{peakC: report.Reproduced, regErr: report.Reproduced, up: report.Reproduced}},
		{"the stream ends counted as errors, as before they were typed", "", func(_ string, _, _ int, smp *cluster.MetricSample) {
			smp.HandledErr += smp.StreamsUnavailable
			smp.StreamsUnavailable = 0
		}, map[string]report.Verdict{regErr: report.Outside}},
		{"a member without a leader under jitter: its stream ends are the registry's", "jitter", func(name string, i, n int, smp *cluster.MetricSample) {
			if name == "m1" && i == n/2 { // the samples begin 1 s before the heal and cover the window after it
				smp.HasLeader = 0
			}
		}, map[string]report.Verdict{regErr: report.Outside, up: report.Outside}},
		{"no leader state exported: the stream ends cannot be typed", "", missing(cluster.FamilyHasLeader, cluster.FamilyLeaderChanges),
			map[string]report.Verdict{peakC: report.Reproduced, regErr: report.Invalid, up: report.Invalid}},
		{"no gRPC counters exported", "", missing(cluster.FamilyStarted, cluster.FamilyHandled),
			map[string]report.Verdict{peakC: report.Invalid, regErr: report.Invalid, up: report.Reproduced}},
	}
	// docs/nacos.md quotes these two counts.
	res := scentest.Judge(s, h)
	for st, want := range map[string]float64{"immediate": 115, "jitter": 211} {
		if got := res.Metrics[st+".registry.closed_coded_as_errors"]; math.Round(got) != want {
			t.Errorf("%s: %g streams ended Unavailable and closed by their clients, docs/nacos.md says %g", st, got, want)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hh := h
			if tc.edit != nil {
				hh = editSamples(t, h, tc.strategy, tc.edit)
			}
			res := scentest.Judge(s, hh)
			for name, want := range tc.want {
				if got := scentest.Verdict(res, name); got != want {
					t.Errorf("%s: %s, want %s (%s)", name, got, want, measured(res, name))
				}
			}
			for _, w := range scentest.NonFinite(res) {
				t.Error(w)
			}
			text := strings.Join(res.Conclusion, "\n")
			if !strings.Contains(text, "serving time is not measured: m1, m2, m3 (etcd 3.4.25) export no etcd_server_request_duration_seconds") {
				t.Errorf("the conclusion does not say the serving time is missing:\n%s", text)
			}
		})
	}
}

// measured returns a check's measurement or why it is invalid.
func measured(res *report.Result, name string) string {
	for _, c := range res.Checks {
		if c.Name == name {
			return c.MeasuredText + " " + c.Cause
		}
	}
	return "no such check"
}
