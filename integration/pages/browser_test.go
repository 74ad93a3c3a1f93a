package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"sdchaos/internal/cmdrun"
	"sdchaos/report"
)

// browserPath finds a Chromium to drive ("" when none is installed).
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium on a fresh profile with every
// background connection off (a closed network refuses them) and returns a
// context to drive it; its processes end with the test, and its temporary
// files (the profile and the singleton socket Chromium makes in TMPDIR)
// are in the test's temp dirs.
func newBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR=" + t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// pageReport is what the browser saw on one page.
type pageReport struct {
	errors []string // console errors, uncaught exceptions, failed loads
	links  []string // every link's resolved URL
	broken []string // images that did not load (their alt text)
	wanted int      // elements that match the page's selector
	tables int      // tables with a header row
}

// openPage loads a page from disk in a new tab, gathers what went wrong,
// counts the elements that match want and writes a full-page screenshot to
// shot.
func openPage(t *testing.T, bctx context.Context, path, want, shot string) pageReport {
	t.Helper()
	tab, cancel := chromedp.NewContext(bctx)
	defer cancel()
	var mu sync.Mutex
	var rep pageReport
	messages := chromedp.Console(tab)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleType("error") || m.IsException() {
				mu.Lock()
				rep.errors = append(rep.errors, fmt.Sprintf("%s %s %s", m.Type, m.Text, m.URL))
				mu.Unlock()
			}
		}
	}()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelTime := context.WithTimeout(tab, 60*time.Second)
	defer cancelTime()
	if err := chromedp.Do(ctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String()), chromedp.WaitReady("footer")); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	evaluate := func(js string, into any) {
		var err error
		switch v := into.(type) {
		case *[]string:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		case *int:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[int](js))
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", path, js, err)
		}
	}
	evaluate(`Array.from(document.querySelectorAll('a[href]')).map(a => a.href)`, &rep.links)
	evaluate(`Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt)`, &rep.broken)
	evaluate(fmt.Sprintf(`document.querySelectorAll(%q).length`, want), &rep.wanted)
	evaluate(`Array.from(document.querySelectorAll('table')).filter(t => t.querySelector('thead th')).length`, &rep.tables)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", path, err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return rep
}

// brokenLinks returns the links of a page that lead nowhere: a file that
// does not exist, an anchor without its element (checked by the page's
// own ids), or any link off the disk (a page must stand alone).
func brokenLinks(page string, links []string) []string {
	var out []string
	body, _ := os.ReadFile(page)
	for _, l := range links {
		u, err := url.Parse(l)
		switch {
		case err != nil || u.Scheme != "file":
			out = append(out, l+" (not a file beside the page)")
		case !exists(u.Path):
			out = append(out, l+" (no such file)")
		case u.Fragment != "" && filepath.Clean(u.Path) == filepath.Clean(page) && !strings.Contains(string(body), `id="`+u.Fragment+`"`):
			out = append(out, l+" (no such anchor)")
		}
	}
	return out
}

// TestPagesInABrowser runs a short real cache-on-failure once and twice
// (--runs 2 under 'all', with its index, and a comparison of the two),
// and opens every page they wrote, and the committed results' front door,
// a sweep and a point, in headless Chromium: no console error, no broken
// link or image, the verdicts (or the comparison) in a table with a header. Each page's full screenshot is
// written to the test's artifact directory (kept with go test -artifacts).
func TestPagesInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd cluster and a browser")
	}
	path := browserPath()
	if path == "" {
		t.Skip("no chromium on PATH: the browser test skips (apt-get install chromium)")
	}
	one, two := t.TempDir(), t.TempDir()
	common := []string{"--duration", "4s", "--outage-at", "2s", "--port-base", "14200", "--quiet"}
	command(t, append([]string{"cache-on-failure", "--out", one}, common...)...)
	command(t, "all", "--only", "cache-on-failure", "--runs", "2", "--port-base", "14200", "--quiet", "--out", two)
	cmp := filepath.Join(two, "compare.html")
	command(t, "compare", "--html", cmp, one, two)
	pages := []struct{ path, want string }{ // want: a selector the page must show
		{filepath.Join(one, "cache-on-failure.html"), "table.checks .badge"},
		{filepath.Join(two, "index.html"), "table.grid .badge"},
		{filepath.Join(two, "cache-on-failure.html"), "table.checks .badge"},
		{cmp, "table.grid thead th"},
		{"../../results/index.html", "table.grid .badge"},
		{"../../results/sweeps/cache-on-failure-refresh/cache-on-failure.sweep-refresh.html", "table.grid .badge"},
		{"../../results/sweeps/cache-on-failure-refresh/points/cache-on-failure--refresh=1s.html", "table.checks .badge"},
	}
	for _, seedPage := range seedPages(t, two, "cache-on-failure") {
		pages = append(pages, struct{ path, want string }{seedPage, "table.checks .badge"})
	}
	bctx := newBrowser(t, path)
	shots := t.ArtifactDir()
	for i, p := range pages {
		shot := filepath.Join(shots, fmt.Sprintf("%d-%s.png", i, strings.TrimSuffix(filepath.Base(p.path), ".html")))
		rep := openPage(t, bctx, p.path, p.want, shot)
		for _, e := range rep.errors {
			t.Errorf("%s: %s", p.path, e)
		}
		for _, b := range append(brokenLinks(p.path, rep.links), rep.broken...) {
			t.Errorf("%s: broken: %s", p.path, b)
		}
		if rep.wanted == 0 || rep.tables == 0 {
			t.Errorf("%s: nothing matches %q (%d), or no table with a header row (%d)", p.path, p.want, rep.wanted, rep.tables)
		}
		t.Logf("%s: %d links, %d × %s, screenshot %s", p.path, len(rep.links), rep.wanted, p.want, shot)
	}
}

// seedPages returns the pages of each valid run of repeated runs stored as
// name in dir, and fails when one is missing (a run the machine's load made
// invalid has none).
func seedPages(t *testing.T, dir, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var res report.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	var out []string
	for _, r := range res.Runs {
		if r.Retry || r.Verdict == report.Invalid {
			continue
		}
		out = append(out, filepath.Join(dir, fmt.Sprintf("%s.seed%d.html", name, r.Seed)))
	}
	if len(out) < 2 {
		t.Logf("%d valid runs of %s (the machine's load): no page of a single run of repeated runs to check", len(out), name)
		return nil
	}
	for _, p := range out {
		if !exists(p) {
			t.Errorf("no page for a valid run: %s", p)
		}
	}
	return out
}

// command runs the experiments command with args; a run's verdict (exit 1, outside; 3,
// invalid) is not a failure here: a page is written either way.
func command(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(cmdrun.Exe, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err != nil && code != cmdrun.ExitNotReproduced && code != cmdrun.ExitInvalid {
		t.Fatalf("experiments %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// exists reports whether path names a file or directory.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
