package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/report"
)

// storedResults returns every stored report under results/ (the runs, the
// baseline, the real-Eureka runs, each sweep's points), by path.
func storedResults(t *testing.T) map[string]*report.Result {
	t.Helper()
	out := map[string]*report.Result{}
	err := filepath.WalkDir("../../results", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		r, err := loadResult(p)
		if err != nil || r.Scenario == "" {
			return nil // a summary or a sweep's table, not a report
		}
		out[strings.TrimPrefix(p, "../../")] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no stored report under results/")
	}
	return out
}

// TestStoredVerdictsMeanWhatTheySay: a stored check with an article figure
// states how near ours must be to agree with it (and why), and reads
// reproduced only when ours (over repeated runs, its median) lies in that
// interval; a differs names its cause.
func TestStoredVerdictsMeanWhatTheySay(t *testing.T) {
	for path, r := range storedResults(t) {
		for _, c := range r.Checks {
			if c.ArticleLo == nil || c.Verdict == report.Invalid {
				continue
			}
			if c.AgreeLo == nil || c.AgreeBasis == "" || strings.HasPrefix(c.AgreeBasis, "no tolerance stated") {
				t.Errorf("%s: %q carries the article's figure but states no agreement with its basis (%q)", path, c.Name, c.AgreeBasis)
				continue
			}
			m := float64(c.Measured)
			in := !math.IsNaN(m) && m >= *c.AgreeLo && m <= *c.AgreeHi
			if c.Verdict == report.Reproduced && !in {
				t.Errorf("%s: %q reads reproduced with %s outside its agreement interval %g–%g", path, c.Name, c.MeasuredText, *c.AgreeLo, *c.AgreeHi)
			}
			if c.Verdict == report.Differs && c.Cause == "" {
				t.Errorf("%s: %q differs without a cause", path, c.Name)
			}
		}
	}
}
