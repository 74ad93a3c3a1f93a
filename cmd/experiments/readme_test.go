package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sdchaos/scenarios"
)

// The README's claims about the command are checked against the code here,
// so a change to either shows up as a failing test.

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadmeScenarioTableIsTheRegistry(t *testing.T) {
	var b bytes.Buffer
	if err := list(&b, []string{"--markdown"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, "../../README.md"), strings.TrimSpace(b.String())) {
		t.Errorf("README.md lacks the table that 'list --markdown' prints; paste it:\n%s", b.String())
	}
}

// flagRow is one row of a README flag table: its flags, their defaults and
// the scenarios named in its meaning (none: every scenario of the table).
type flagRow struct {
	flags, defaults, only []string
	exceptions            map[string]string // scenario → default
}

var (
	backticked = regexp.MustCompile("`--([a-z-]+)")
	exception  = regexp.MustCompile(`\(([a-z-]+): ([^)]+)\)`)
	scenarioIn = regexp.MustCompile(`^\(([a-z, -]+)\)`)
)

// flagTable parses the rows of the README table under heading.
func flagTable(t *testing.T, readme, heading string) []flagRow {
	t.Helper()
	i := strings.Index(readme, heading)
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	var rows []flagRow
	for _, line := range strings.Split(readme[i:], "\n")[3:] {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			break
		}
		r := flagRow{exceptions: map[string]string{}}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			r.flags = append(r.flags, m[1])
		}
		def := strings.TrimSpace(cells[2])
		for _, m := range exception.FindAllStringSubmatch(def, -1) {
			r.exceptions[m[1]] = m[2]
		}
		def = strings.TrimSpace(exception.ReplaceAllString(def, ""))
		r.defaults = regexp.MustCompile(` / |, `).Split(def, -1)
		if m := scenarioIn.FindStringSubmatch(strings.TrimSpace(cells[3])); m != nil {
			r.only = strings.Split(m[1], ", ")
		}
		rows = append(rows, r)
	}
	return rows
}

func TestReadmeArticle47FlagsAreTheCode(t *testing.T) {
	rows := flagTable(t, readFile(t, "../../README.md"), "### Flags of the article-47 scenarios")
	all := []string{"cache-on-failure", "passive-ejection", "minority"}
	for _, r := range rows {
		if len(r.flags) == 0 || len(r.defaults) != len(r.flags) {
			t.Errorf("row %v: %d defaults for %d flags", r.flags, len(r.defaults), len(r.flags))
			continue
		}
		for _, name := range all {
			spec, _ := scenarios.Lookup(name)
			fs, _, _ := scenarios.NewFlagSet(spec)
			for i, f := range r.flags {
				fl := fs.Lookup(f)
				want := len(r.only) == 0 || contains(r.only, name)
				switch {
				case want && fl == nil:
					t.Errorf("README: %s offers --%s; it does not", name, f)
				case !want && fl != nil:
					t.Errorf("README: --%s is for %v only, but %s offers it too", f, r.only, name)
				case want && !sameDefault(fl.DefValue, pick(r, name, i)):
					t.Errorf("README: --%s of %s defaults to %s; the code says %s", f, name, pick(r, name, i), fl.DefValue)
				}
			}
		}
	}
}

func TestReadmeCommonFlagsAreTheCode(t *testing.T) {
	rows := flagTable(t, readFile(t, "../../README.md"), "### Flags every scenario has")
	spec, _ := scenarios.Lookup("cache-on-failure")
	fs, _, _ := scenarios.NewFlagSet(spec)
	for _, r := range rows {
		for i, f := range r.flags {
			fl := fs.Lookup(f)
			if fl == nil {
				t.Errorf("README: every scenario has --%s; cache-on-failure does not", f)
				continue
			}
			if d := r.defaults[i]; d != "—" && !strings.HasPrefix(d, "per scenario") && !sameDefault(fl.DefValue, d) {
				t.Errorf("README: --%s defaults to %s; the code says %s", f, d, fl.DefValue)
			}
		}
	}
}

func pick(r flagRow, scenario string, i int) string {
	if d, ok := r.exceptions[scenario]; ok {
		return d
	}
	return r.defaults[i]
}

func sameDefault(code, readme string) bool {
	return code == readme || (code == "" && readme == "—")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestReadmeExitCodesAndTestCommand(t *testing.T) {
	readme := readFile(t, "../../README.md")
	for _, code := range []int{exitReproduced, exitNotReproduced, exitError, exitInvalid, exitEnvironment, exitInterrupted, exitTerminated} {
		if !strings.Contains(readme, "| **"+strconv.Itoa(code)+"** |") {
			t.Errorf("README's exit-code table does not document exit code %d", code)
		}
	}
	ci := readFile(t, "../../.ci/run")
	if !strings.Contains(readme, "go test ./...") || !strings.Contains(ci, "\ngo test ./...\n") {
		t.Error("README's test command and .ci/run's differ (want exactly `go test ./...` in both)")
	}
}

// TestReadmeArchitectureListsEveryPackage: every package of the module is
// named in the README's architecture table (`dir/`, or in a shared row).
func TestReadmeArchitectureListsEveryPackage(t *testing.T) {
	readme := readFile(t, "../../README.md")
	start := strings.Index(readme, "## Architecture")
	if start < 0 {
		t.Fatal("README has no Architecture section")
	}
	table := readme[start:]
	out, err := exec.Command("go", "list", "sdchaos/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		dir := strings.TrimPrefix(p, "sdchaos/")
		if !strings.Contains(table, "`"+dir+"/`") && !strings.Contains(table, "`"+dir+"`") {
			t.Errorf("the README's architecture table does not list %s/", dir)
		}
	}
}

// TestUsageNamesEveryCommand: every command run dispatches is in the
// usage text and has a 'help <command>' of its own.
func TestUsageNamesEveryCommand(t *testing.T) {
	src := readFile(t, "main.go")
	body := src[strings.Index(src, "func run("):]
	cases := regexp.MustCompile(`case "([a-z]+)"`).FindAllStringSubmatch(body, -1)
	if len(cases) < 8 {
		t.Fatalf("found %d commands in run", len(cases))
	}
	var u bytes.Buffer
	usage(&u)
	for _, m := range cases {
		if !strings.Contains(u.String(), "experiments "+m[1]) {
			t.Errorf("the usage text leaves out %q", m[1])
		}
		var h bytes.Buffer
		if err := help(&h, m[1]); err != nil || !strings.Contains(h.String(), "experiments "+m[1]) {
			t.Errorf("help %s: %v\n%s", m[1], err, h.String())
		}
	}
}

// docFiles are the repository's pages: README.md, docs/ and the READMEs
// and reports under results/.
func docFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, ".md"):
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mdLink is a markdown link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinksResolve: every relative link of every page names a file or
// directory of the repository, and nothing points outside it (at the
// sessions' shared notes, say).
func TestDocLinksResolve(t *testing.T) {
	pages := docFiles(t)
	if len(pages) < 20 {
		t.Fatalf("found %d pages", len(pages))
	}
	for _, page := range pages {
		text := readFile(t, page)
		for _, bad := range []string{"../shared", "shared/reference", "/work/"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s points outside the repository (%q)", page, bad)
			}
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links %s, which is not in the repository", page, m[1])
			}
		}
	}
}
