// Package figuretest checks rendered figures in tests: each figure's SVG
// must be well-formed XML and hold the texts (titles, legend entries,
// window labels) and shaded fault windows the test expects.
package figuretest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sdchaos/figure"
)

// Doc is one rendered figure: its SVG and the text it shows.
type Doc struct {
	Name  string
	SVG   string
	Texts []string
}

// Render renders every figure as SVG and PNG and parses the SVG as XML;
// it fails the test on a rendering error or malformed XML. With
// FIGURE_OUT=dir set it also writes the files there, to look at them.
func Render(t testing.TB, plots []figure.Plot) map[string]Doc {
	t.Helper()
	out := map[string]Doc{}
	for _, f := range plots {
		svg, err := figure.SVG(f)
		if err != nil {
			t.Fatalf("rendering %s as SVG: %v", f.Name, err)
		}
		png, err := figure.PNG(f)
		if err != nil {
			t.Fatalf("rendering %s as PNG: %v", f.Name, err)
		}
		texts, err := texts(svg)
		if err != nil {
			t.Fatalf("the SVG of %s is not well-formed XML: %v", f.Name, err)
		}
		out[f.Name] = Doc{Name: f.Name, SVG: string(svg), Texts: texts}
		if dir := os.Getenv("FIGURE_OUT"); dir != "" {
			_ = os.WriteFile(filepath.Join(dir, t.Name()+"."+f.Name+".svg"), svg, 0o644)
			_ = os.WriteFile(filepath.Join(dir, t.Name()+"."+f.Name+".png"), png, 0o644)
		}
	}
	return out
}

// texts decodes the SVG and returns its character data.
func texts(svg []byte) ([]string, error) {
	var out []string
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if cd, ok := tok.(xml.CharData); ok {
			if s := strings.TrimSpace(string(cd)); s != "" {
				out = append(out, s)
			}
		}
	}
}

// Has fails the test for each wanted text the figure does not show
// (exactly, or as a part of a longer text when it ends with "…").
func (d Doc) Has(t testing.TB, want ...string) {
	t.Helper()
	for _, w := range want {
		if !d.shows(w) {
			t.Errorf("figure %s shows no text %q; it shows %q", d.Name, w, d.Texts)
		}
	}
}

func (d Doc) shows(w string) bool {
	part, isPart := strings.CutSuffix(w, "…")
	for _, s := range d.Texts {
		if s == w || (isPart && strings.Contains(s, part)) {
			return true
		}
	}
	return false
}

// fillRE finds the fill colours of an SVG.
var fillRE = regexp.MustCompile(`fill:#([0-9A-Fa-f]{6})`)

// Shaded counts the SVG's fills in a fault window's colour (any kind; a
// window never healed is drawn lighter, with the same hue): every shaded
// window of every panel, and every window's bar in the label strip.
func (d Doc) Shaded() int {
	n := 0
	for _, m := range fillRE.FindAllStringSubmatch(d.SVG, -1) {
		if isShade(m[1]) {
			n++
		}
	}
	return n
}

// AtLeastShaded fails the test when the figure has fewer than n shaded
// fills (each window counts twice: its shading and its bar).
func (d Doc) AtLeastShaded(t testing.TB, n int) {
	t.Helper()
	if got := d.Shaded(); got < n {
		t.Errorf("figure %s has %d fills in a fault window's colour, want at least %d", d.Name, got, n)
	}
}

func isShade(hex string) bool {
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return false
	}
	r, g, b := int(v>>16), int(v>>8&0xFF), int(v&0xFF)
	for i := range 5 {
		c := figure.ShadeColor(i)
		if near(r, int(c.R)) && near(g, int(c.G)) && near(b, int(c.B)) {
			return true
		}
	}
	return false
}

func near(a, b int) bool { return a-b <= 3 && b-a <= 3 }

// One returns the only figure called name, failing the test when there is none.
func One(t testing.TB, docs map[string]Doc, name string) Doc {
	t.Helper()
	d, ok := docs[name]
	if !ok {
		t.Fatalf("no figure %s; figures: %s", name, fmt.Sprint(keys(docs)))
	}
	return d
}

func keys(m map[string]Doc) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
