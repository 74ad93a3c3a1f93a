package main

import (
	"bytes"
	"html"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// resultsRoot is the committed results, from this package's directory.
const resultsRoot = "../../results"

// committedResults lists every stored result under results/ by its JSON path.
func committedResults(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(resultsRoot, func(p string, d os.DirEntry, err error) error {
		stem := strings.TrimSuffix(filepath.Base(p), ".json")
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && isResultStem(stem) {
			out = append(out, p)
		}
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no stored result under %s: %v", resultsRoot, err)
	}
	return out
}

// TestRerunCommandGivesTheStoredParams: the command a page gives to run a
// stored result again parses to that result's parameters.
func TestRerunCommandGivesTheStoredParams(t *testing.T) {
	for _, path := range committedResults(t) {
		res, err := loadResult(path)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := lookup(scenarioOf(res, ""))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		cmd := rerunCommand(spec, res, runNet(filepath.Dir(path), name, res))
		words := strings.Fields(cmd)
		prefix := []string{"go", "run", "./cmd/experiments", spec.Name}
		if !slices.Equal(words[:4], prefix) {
			t.Fatalf("%s: %q does not start with %q", path, cmd, prefix)
		}
		var args []string
		for i := 4; i < len(words); i++ {
			if words[i] == "--seed" || words[i] == "--runs" {
				i++
				continue
			}
			args = append(args, strings.Trim(words[i], "'"))
		}
		// A flag added after the run was made is at its default; every
		// parameter the run stored must come back as it was.
		got, want := parsedParams(spec, args), normalParams(res.Params)
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %q gives --%s=%v, the run had %v", path, cmd, k, got[k], v)
			}
		}
	}
}

var linkAttr = regexp.MustCompile(`(href|src)="([^"]*)"`)

// pageRefs returns a page's links (href) and images (src), unescaped.
func pageRefs(t *testing.T, path string) (hrefs, srcs []string) {
	t.Helper()
	for _, m := range linkAttr.FindAllStringSubmatch(readFile(t, path), -1) {
		v := html.UnescapeString(m[2])
		if m[1] == "src" {
			srcs = append(srcs, v)
		} else {
			hrefs = append(hrefs, v)
		}
	}
	return hrefs, srcs
}

// TestCommittedPagesLinkWhatExists: every committed page (porcupine's
// aside) embeds its images and links only files that exist beside it, and
// results/index.html leads, link by link, to the page of every stored
// result and sweep.
func TestCommittedPagesLinkWhatExists(t *testing.T) {
	reached := map[string]bool{}
	queue := []string{filepath.Join(resultsRoot, indexPage)}
	for len(queue) > 0 {
		page := filepath.Clean(queue[0])
		queue = queue[1:]
		if reached[page] {
			continue
		}
		reached[page] = true
		hrefs, srcs := pageRefs(t, page)
		for _, s := range srcs {
			if !strings.HasPrefix(s, "data:image/") {
				t.Errorf("%s: image %.60q is not embedded", page, s)
			}
		}
		for _, h := range hrefs {
			u, err := url.Parse(h)
			if h == "data:," { // the empty icon that keeps a browser from asking for favicon.ico
				continue
			}
			if err != nil || u.Scheme != "" || u.Host != "" {
				t.Errorf("%s: link %q leaves the results", page, h)
				continue
			}
			if u.Path == "" {
				if u.Fragment != "" && !strings.Contains(readFile(t, page), `id="`+u.Fragment+`"`) {
					t.Errorf("%s: no anchor %q", page, h)
				}
				continue
			}
			target := filepath.Join(filepath.Dir(page), filepath.FromSlash(u.Path))
			switch {
			case !exists(target):
				t.Errorf("%s: link %q: no such file", page, h)
			case strings.HasSuffix(target, pageExt) && !strings.HasSuffix(target, ".history.html"):
				queue = append(queue, target)
			}
		}
	}
	for _, path := range committedResults(t) {
		if page := filepath.Clean(strings.TrimSuffix(path, ".json") + pageExt); !reached[page] {
			t.Errorf("results/index.html does not lead to %s", page)
		}
	}
	sweeps, _ := filepath.Glob(filepath.Join(resultsRoot, "sweeps", "*", "*.sweep-*.json"))
	for _, s := range sweeps {
		if page := filepath.Clean(strings.TrimSuffix(s, ".json") + pageExt); !reached[page] {
			t.Errorf("results/index.html does not lead to %s", page)
		}
	}
}

// TestCommittedPagesAreCurrent: 'experiments pages results' on a copy of
// results/ writes the committed pages byte for byte, so a page never says
// less than (or other than) its stored result.
func TestCommittedPagesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("copies results/ and writes every page")
	}
	tmp := t.TempDir()
	committed, err := filepath.Abs(resultsRoot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(tmp, "results"), os.DirFS(committed)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(tmp, "docs"), os.DirFS("../../docs")); err != nil { // the index links the lessons
		t.Fatal(err)
	}
	t.Chdir(tmp)
	if err := run(t.Context(), []string{"pages", "results"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	stale := 0
	_ = filepath.WalkDir("results", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, pageExt) || strings.HasSuffix(p, ".history.html") {
			return err
		}
		now, _ := os.ReadFile(p)
		old, err := os.ReadFile(filepath.Join(committed, strings.TrimPrefix(p, "results")))
		if !bytes.Equal(now, old) {
			stale++
			t.Errorf("%s is not what its stored result gives now (%v)", p, err)
		}
		return nil
	})
	if stale > 0 {
		t.Errorf("%d pages are stale: run 'go run ./cmd/experiments pages results' and commit them", stale)
	}
}

// TestTeachingPagesLinkTheRunsTheyQuote: a lesson or the findings that
// quote a stored run (<!--r NAME …-->) link that run's page, so a student
// finds the full report behind every number.
func TestTeachingPagesLinkTheRunsTheyQuote(t *testing.T) {
	pages, _ := filepath.Glob("../../docs/learn/[0-9]*.md")
	pages = append(pages, "../../docs/findings.md")
	for _, page := range pages {
		text := readFile(t, page)
		rel, err := filepath.Rel(filepath.Dir(page), resultsRoot)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docRef.FindAllStringSubmatch(text, -1) {
			link := "](" + filepath.ToSlash(filepath.Join(rel, m[2]+pageExt)) + ")"
			if !strings.Contains(text, link) {
				t.Errorf("%s quotes %s but does not link its page (%s)", filepath.Base(page), m[2], link)
			}
		}
	}
}
