package scentest

import (
	"encoding/json"
	"strings"
	"testing"

	"sdchaos/history"
	"sdchaos/report"
)

// NamesEveryComponent requires a real run's metadata to name its server
// (the header's server line holds server) and every named component with
// its coordinates, a version read where it was built (never a placeholder)
// and where it was read; every component it holds must be complete too.
// It logs the metadata's world as JSON.
func NamesEveryComponent(t *testing.T, res *report.Result, server string, names ...string) {
	t.Helper()
	if res.Meta == nil {
		t.Fatal("the result has no meta")
	}
	w := res.Meta.World
	if b, err := json.MarshalIndent(w, "", "  "); err == nil {
		t.Logf("meta of %s:\n%s", res.Scenario, b)
	}
	if !strings.Contains(w.Server, server) || !strings.Contains(report.Header(res), w.Server) {
		t.Errorf("server line %q: want one holding %q, in the header %q", w.Server, server, report.Header(res))
	}
	for _, n := range names {
		if _, ok := w.Component(n); !ok {
			t.Errorf("meta names no component %q", n)
		}
	}
	for _, c := range w.Components {
		if !complete(c) {
			t.Errorf("component %+v: want coordinates, a version read at build time and its source", c)
		}
	}
}

// complete reports whether a component names what it is, its version and where that was read.
func complete(c history.Component) bool {
	v := strings.ToLower(c.Version)
	return c.Name != "" && c.Role != "" && c.Coordinates != "" && c.UsedBy != "" && c.Source != "" &&
		v != "" && !strings.HasPrefix(v, "not ") && !strings.HasPrefix(v, "unknown")
}

// HasSettings requires a setting of each name (of any owner whose name
// holds of) in the run's metadata.
func HasSettings(t *testing.T, res *report.Result, of string, names ...string) {
	t.Helper()
	for _, n := range names {
		found := false
		for _, s := range res.Meta.Settings {
			found = found || (s.Name == n && strings.Contains(s.Of, of))
		}
		if !found {
			t.Errorf("meta has no setting %q of %q", n, of)
		}
	}
}
