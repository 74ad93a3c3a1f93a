package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sdchaos/scenarios"
)

// readmeLine returns the README's line that starts with prefix.
func readmeLine(t *testing.T, readme, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(readme, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("README has no line starting %q", prefix)
	return ""
}

// backtickedName is a `name` in a line.
var backtickedName = regexp.MustCompile("`([a-z0-9-]+)`")

// TestReadmeNetRowIsTheCode: the README's --net row names the scenarios
// that do not offer it as the code has them: by group (the article-40
// scenarios, the Eureka scenarios) or by name, and a scenario of such a
// group that offers it is named as the one that does.
func TestReadmeNetRowIsTheCode(t *testing.T) {
	row := readmeLine(t, readFile(t, "../../README.md"), "| `--net` |")
	_, notOffered, ok := strings.Cut(row, "not offered by")
	if !ok {
		t.Fatalf("README's --net row says nothing of where it is not offered: %s", row)
	}
	groups := map[string]string{"article 40": "article-40 scenarios", "Eureka article": "Eureka scenarios"}
	for _, s := range scenarios.All() {
		group := ""
		for prefix, words := range groups {
			if strings.HasPrefix(s.Article, prefix) {
				group = words
			}
		}
		named := strings.Contains(notOffered, "`"+s.Name+"`")
		switch offers := takesFlag(s, "net"); {
		case !offers && group == "" && !named:
			t.Errorf("README's --net row does not name %s, which does not offer --net", s.Name)
		case !offers && group != "" && !strings.Contains(notOffered, group):
			t.Errorf("README's --net row does not name the %s, and %s does not offer --net", group, s.Name)
		case offers && named && !regexp.MustCompile("`"+s.Name+"`[^`|]*offers it").MatchString(notOffered):
			t.Errorf("README's --net row names %s among those without --net; it offers it", s.Name)
		case offers && group != "" && strings.Contains(notOffered, group) && !named:
			t.Errorf("README's --net row says the %s lack --net; %s offers it and is not named as the exception", group, s.Name)
		}
	}
	for _, m := range backtickedName.FindAllStringSubmatch(notOffered, -1) {
		if _, ok := scenarios.Lookup(m[1]); !ok {
			t.Errorf("README's --net row names %q, which is no scenario", m[1])
		}
	}
}

// TestReadmeAllCountsAreTheCode: the README's count of the scenarios
// `all` runs, of those `experiments list` gives and of the runs of `all
// --runs 10` are the plan's.
func TestReadmeAllCountsAreTheCode(t *testing.T) {
	readme := readFile(t, "../../README.md")
	planned, listed := len(allOptions{}.plan()), len(scenarios.All())
	for _, want := range []string{
		fmt.Sprintf("`all` now runs %d scenarios", planned),
		fmt.Sprintf("the %d of `experiments list`", listed),
		fmt.Sprintf("`--runs 10` makes %d runs", 10*planned),
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q (the plan of `all` has %d scenarios, `list` %d)", want, planned, listed)
		}
	}
}

// TestReadmeNamesEverySweep: the README's paragraph on the sweeps names the
// scenario of every sweep stored under results/sweeps.
func TestReadmeNamesEverySweep(t *testing.T) {
	readme := readFile(t, "../../README.md")
	i := strings.Index(readme, "The sweeps in [results/sweeps/]")
	if i < 0 {
		t.Fatal("README has no paragraph on the sweeps")
	}
	para, _, _ := strings.Cut(readme[i:], "\n\n")
	files, _ := filepath.Glob("../../results/sweeps/*/*.sweep-*.json")
	if len(files) == 0 {
		t.Fatal("no sweep under results/sweeps")
	}
	for _, f := range files {
		sr, err := loadSweep(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(para, sr.Scenario) {
			t.Errorf("README's paragraph on the sweeps does not name %s (%s)", sr.Scenario, filepath.Dir(f))
		}
	}
}
