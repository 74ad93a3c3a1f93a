package pages_test

import (
	"context"
	"net/url"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// evaluateOn loads a stored page in a new tab and returns what js evaluates to there.
func evaluateOn[T any](t *testing.T, bctx context.Context, path, js string) T {
	t.Helper()
	tab, cancel := chromedp.NewContext(bctx)
	defer cancel()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelTime := context.WithTimeout(tab, 60*time.Second)
	defer cancelTime()
	if err := chromedp.Do(ctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String()), chromedp.WaitReady("footer")); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %s: %v", path, js, err)
	}
	return v
}

// TestStoredPagesNameTheirServer opens committed run pages of each real
// world in headless Chromium at 1280 px: above the fold (the page's header)
// each names its server and the server's version; a real-Eureka page says
// that real Netflix Eureka ran.
func TestStoredPagesNameTheirServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	path := browserPath()
	if path == "" {
		t.Skip("no chromium on PATH: the browser test skips (apt-get install chromium)")
	}
	bctx := newBrowser(t, path)
	for page, want := range map[string]*regexp.Regexp{
		"../../results/matrix/quorum-loss--nacos.html":     regexp.MustCompile(`Nacos server \d+\.\d+\.\d+`),
		"../../results/matrix/quorum-loss--eureka.html":    regexp.MustCompile(`Netflix Eureka server \d+\.\d+\.\d+`),
		"../../results/matrix/quorum-loss--zookeeper.html": regexp.MustCompile(`ZooKeeper \d+\.\d+\.\d+`),
		"../../results/eureka-real/self-preservation.html": regexp.MustCompile(`Ran: real Netflix Eureka`),
	} {
		header := evaluateOn[string](t, bctx, page, `document.querySelector('header').innerText`)
		if !want.MatchString(header) {
			t.Errorf("%s: the header does not match %q:\n%s", page, want, header)
		}
	}
}

// TestMatrixFits1280: the stored matrix page has no horizontal scrollbar
// at 1280 px, neither the page's nor any table's.
func TestMatrixFits1280(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	path := browserPath()
	if path == "" {
		t.Skip("no chromium on PATH: the browser test skips (apt-get install chromium)")
	}
	bctx := newBrowser(t, path)
	const js = `[document.documentElement.scrollWidth > document.documentElement.clientWidth ? 'the page' : '']
		.concat(Array.from(document.querySelectorAll('.scroll')).filter(e => e.scrollWidth > e.clientWidth)
		.map(e => (e.querySelector('caption') || e).innerText.slice(0, 60))).filter(s => s)`
	for _, over := range evaluateOn[[]string](t, bctx, "../../results/matrix/matrix.html", js) {
		t.Errorf("matrix.html at 1280 px: %s scrolls sideways", over)
	}
}
