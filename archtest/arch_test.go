package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// packages lists the module's packages with `go list -json ./...`.
func packages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "sdchaos/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var ps []pkg
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

func local(imp string) bool { return imp == "sdchaos" || strings.HasPrefix(imp, "sdchaos/") }

// The layers are computed from each package's path, so a new package is
// checked without editing this file: the command (cmd/) and the
// scenarios (the core and its rooms) on top, the rig below them, and
// every other package of the module on the floors below; the judge side
// (report, linearize, figure and their sub-packages) defines checks,
// verdicts and checkers, and every other package of the rig and below
// only records.

// isBelow reports whether path is a floor below the scenarios and the
// rig: none of them may import a scenario room, the core, the rig or the
// command.
func isBelow(path string) bool {
	return local(path) && !strings.HasPrefix(path, "sdchaos/cmd/") && !strings.HasPrefix(path, "sdchaos/scenarios") &&
		path != "sdchaos/rig" && !isWorld(path) && path != "sdchaos/archtest" && !strings.HasPrefix(path, "sdchaos/examples/") && path != "sdchaos"
}

// isWorld reports whether path is a registry's world (worlds/<name> and
// its sub-packages): between the scenarios and the rig, it may import the
// rig and the floors below, never a scenario or another world.
func isWorld(path string) bool { return world(path) != "" }

// world returns the name of the world path belongs to ("" for none).
func world(path string) string {
	rest, ok := strings.CutPrefix(path, "sdchaos/worlds/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// judgeSide are the packages that define checks, verdicts and checkers.
var judgeSide = []string{"sdchaos/report", "sdchaos/htmlreport", "sdchaos/linearize", "sdchaos/figure"}

// isJudgeSide reports whether path is on the judge side (or a package of it).
func isJudgeSide(path string) bool {
	for _, j := range judgeSide {
		if path == j || strings.HasPrefix(path, j+"/") {
			return true
		}
	}
	return false
}

// isRecorder reports whether path records what happens (ops, events) and
// so must not see the judge side: the rig and every floor below that is
// not the judge side.
func isRecorder(path string) bool {
	return (isBelow(path) || path == "sdchaos/rig" || isWorld(path)) && !isJudgeSide(path)
}

// TestLayersAreComputedFromTheModule shows the lists follow the module:
// every package of it is placed, a new world's package included.
func TestLayersAreComputedFromTheModule(t *testing.T) {
	tests := []struct {
		path            string
		below, recorder bool
	}{
		{"sdchaos/caller", true, true},
		{"sdchaos/worlds/zookeeper", false, true},
		{"sdchaos/someworld", true, true}, // a package that does not exist yet
		{"sdchaos/report", true, false},
		{"sdchaos/figure/figuretest", true, false},
		{"sdchaos/rig", false, true},
		{"sdchaos/scenarios/anyregistry", false, false},
		{"sdchaos/cmd/experiments", false, false},
	}
	for _, tc := range tests {
		if isBelow(tc.path) != tc.below || isRecorder(tc.path) != tc.recorder {
			t.Errorf("%s: below %v recorder %v, want %v %v", tc.path, isBelow(tc.path), isRecorder(tc.path), tc.below, tc.recorder)
		}
	}
}

func TestRecordersDoNotSeeTheJudges(t *testing.T) {
	for _, p := range packages(t) {
		if !isRecorder(p.ImportPath) {
			continue
		}
		for _, d := range judgeDeps(p) {
			t.Errorf("%s (a recorder) depends on %s (the judge side); record first, judge later", p.ImportPath, d)
		}
	}
}

// judgeDeps returns the judge-side packages among p's dependencies.
func judgeDeps(p pkg) []string {
	var out []string
	for _, d := range p.Deps {
		if isJudgeSide(d) {
			out = append(out, d)
		}
	}
	return out
}

// TestJudgeRuleCatchesAnImport shows the rule can fail: a recorder with
// report among its dependencies is reported.
func TestJudgeRuleCatchesAnImport(t *testing.T) {
	p := pkg{ImportPath: "sdchaos/caller", Deps: []string{"sdchaos/history", "sdchaos/report"}}
	if bad := judgeDeps(p); len(bad) != 1 || bad[0] != "sdchaos/report" {
		t.Errorf("judgeDeps(%v) = %v, want [sdchaos/report]", p.Deps, bad)
	}
}

func TestWhoMayImportWhom(t *testing.T) {
	for _, p := range packages(t) {
		for _, imp := range p.Imports {
			if imp == "sdchaos/cmd/experiments" {
				t.Errorf("%s imports the command", p.ImportPath)
			}
			if !local(imp) {
				continue
			}
			switch {
			case p.ImportPath == "sdchaos/history" || p.ImportPath == "sdchaos/clock":
				t.Errorf("%s is a leaf but imports %s", p.ImportPath, imp)
			case p.ImportPath == "sdchaos/report" && imp != "sdchaos/history":
				t.Errorf("report may import only the history, but imports %s", imp)
			case isBelow(p.ImportPath) && (strings.HasPrefix(imp, "sdchaos/scenarios") || imp == "sdchaos/rig" || isWorld(imp)):
				t.Errorf("%s (a floor below the scenarios) imports %s", p.ImportPath, imp)
			case p.ImportPath == "sdchaos/rig" && (strings.HasPrefix(imp, "sdchaos/scenarios") || isWorld(imp)):
				t.Errorf("the rig imports %s: it is neutral", imp)
			case isWorld(p.ImportPath) && strings.HasPrefix(imp, "sdchaos/scenarios"):
				t.Errorf("world %s imports %s", p.ImportPath, imp)
			case isWorld(p.ImportPath) && isWorld(imp) && world(imp) != world(p.ImportPath):
				t.Errorf("world %s imports world %s: worlds stay apart", p.ImportPath, imp)
			case room(p.ImportPath) && room(imp) && imp != p.ImportPath:
				t.Errorf("room %s imports room %s: rooms stay apart", p.ImportPath, imp)
			}
		}
	}
}

// neutral are the packages that must never depend on a world, even through
// another package: the run path, the experiment as data, the record side
// and the judge side.
var neutral = []string{"sdchaos/rig", "sdchaos/experiment", "sdchaos/history", "sdchaos/report"}

// neutralJudge is the judge of the experiments written as data: it imports
// no world (it reaches each through rig.RegistryFor); the scenarios' core it
// shares with the article rooms holds the etcd rooms' external-mode flags.
const neutralJudge = "sdchaos/scenarios/anyregistry"

// TestNeutralPackagesKnowNoWorld fails when a neutral package depends on a
// world, or the neutral judge imports one.
func TestNeutralPackagesKnowNoWorld(t *testing.T) {
	for _, p := range packages(t) {
		deps := p.Deps
		switch {
		case p.ImportPath == neutralJudge:
			deps = p.Imports
		case !contains(neutral, p.ImportPath):
			continue
		}
		for _, d := range deps {
			if isWorld(d) {
				t.Errorf("%s (neutral) depends on %s", p.ImportPath, d)
			}
		}
	}
}

// room reports whether path is a scenario room (not the core or the test helpers).
func room(path string) bool {
	rest, ok := strings.CutPrefix(path, "sdchaos/scenarios/")
	return ok && rest != "scentest"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func TestNoPackageHoldsMoreThanAQuarterOfTheCode(t *testing.T) {
	lines := map[string]int{}
	total := 0
	for _, p := range packages(t) {
		for _, f := range p.GoFiles {
			n := countLines(t, filepath.Join(p.Dir, f))
			lines[p.ImportPath] += n
			total += n
		}
	}
	for path, n := range lines {
		if share := float64(n) / float64(total); share > 0.25 {
			t.Errorf("%s holds %.0f %% of the code (%d of %d lines); split it", path, 100*share, n, total)
		}
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

// TestNeutralPackagesNameNoWorld fails when a neutral package's code (its
// comments included) names a world by its folder's name: they stay true
// for a world that moves in tomorrow. history/meta.go's etcd field is the
// JSON contract's meta.etcd (the etcd module the harness embeds) and stays.
func TestNeutralPackagesNameNoWorld(t *testing.T) {
	dirs, err := os.ReadDir("../worlds")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range dirs {
		if d.IsDir() {
			names = append(names, d.Name())
		}
	}
	if len(names) < 4 {
		t.Fatalf("found %d worlds under worlds/", len(names))
	}
	word := regexp.MustCompile(`(?i)\b(` + strings.Join(names, "|") + `)\b`)
	for _, p := range packages(t) {
		if !contains(neutral, p.ImportPath) && p.ImportPath != neutralJudge {
			continue
		}
		for _, f := range p.GoFiles {
			if p.ImportPath == "sdchaos/history" && f == "meta.go" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if m := word.Find(b); m != nil {
				t.Errorf("%s/%s names the world %q: a neutral package names none", p.ImportPath, f, m)
			}
		}
	}
}
