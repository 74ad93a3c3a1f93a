// Package figuretest checks rendered figures in tests: each figure's SVG
// must be well-formed XML and hold the texts (titles, legend entries,
// window labels) and shaded fault windows the test expects.
package figuretest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// Shape is one path of the SVG: its points (the figure's coordinates, in
// points), its fill and stroke colours (hex, "" for none) and its stroke
// width.
type Shape struct {
	Points       [][2]float64
	Fill, Stroke string
	StrokeWidth  float64
}

// pathRE finds the paths of an SVG as vgsvg writes them.
var pathRE = regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)"`)

// numRE finds the coordinates of a path.
var numRE = regexp.MustCompile(`-?[0-9.]+(?:e-?[0-9]+)?`)

// Shapes returns every path of the SVG.
func (d Doc) Shapes() []Shape {
	var out []Shape
	for _, m := range pathRE.FindAllStringSubmatch(d.SVG, -1) {
		var s Shape
		nums := numRE.FindAllString(m[1], -1)
		for i := 0; i+1 < len(nums); i += 2 {
			x, _ := strconv.ParseFloat(nums[i], 64)
			y, _ := strconv.ParseFloat(nums[i+1], 64)
			s.Points = append(s.Points, [2]float64{x, y})
		}
		for _, kv := range strings.Split(m[2], ";") {
			k, v, _ := strings.Cut(kv, ":")
			switch k {
			case "fill":
				s.Fill = strings.TrimPrefix(strings.ToUpper(v), "#")
			case "stroke":
				s.Stroke = strings.TrimPrefix(strings.ToUpper(v), "#")
			case "stroke-width":
				s.StrokeWidth, _ = strconv.ParseFloat(v, 64)
			}
		}
		if s.Fill == "NONE" {
			s.Fill = ""
		}
		out = append(out, s)
	}
	return out
}

// Hex is a colour as the SVG writes it (opaque colours only).
func Hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("%02X%02X%02X", r>>8, g>>8, b>>8)
}

// Rect is an axis-aligned rectangle of the figure.
type Rect struct {
	X0, Y0, X1, Y1 float64
	Color          string
}

// Overlaps reports whether r and o share some area (not just an edge).
func (r Rect) Overlaps(o Rect) bool {
	const eps = 0.01
	return r.X0 < o.X1-eps && o.X0 < r.X1-eps && r.Y0 < o.Y1-eps && o.Y0 < r.Y1-eps
}

// Bars returns the bars drawn in one of the colours: every filled
// axis-aligned rectangle, and every stroked horizontal line (a bar drawn
// as a thick line) as the rectangle its stroke covers.
func (d Doc) Bars(colors ...color.Color) []Rect {
	want := map[string]bool{}
	for _, c := range colors {
		want[Hex(c)] = true
	}
	var out []Rect
	for _, s := range d.Shapes() {
		switch {
		case want[s.Fill] && isRect(s.Points):
			r := bounds(s.Points)
			r.Color = s.Fill
			out = append(out, r)
		case s.Fill == "" && want[s.Stroke] && len(s.Points) == 2 && s.Points[0][1] == s.Points[1][1]:
			r := bounds(s.Points)
			r.Y0, r.Y1, r.Color = r.Y0-s.StrokeWidth/2, r.Y1+s.StrokeWidth/2, s.Stroke
			out = append(out, r)
		}
	}
	return out
}

// isRect reports whether the points are the corners of an axis-aligned
// rectangle (two distinct x and two distinct y values).
func isRect(pts [][2]float64) bool {
	if len(pts) != 4 {
		return false
	}
	xs, ys := map[float64]bool{}, map[float64]bool{}
	for _, p := range pts {
		xs[p[0]], ys[p[1]] = true, true
	}
	return len(xs) == 2 && len(ys) == 2
}

func bounds(pts [][2]float64) Rect {
	r := Rect{X0: math.Inf(1), Y0: math.Inf(1), X1: math.Inf(-1), Y1: math.Inf(-1)}
	for _, p := range pts {
		r.X0, r.X1 = math.Min(r.X0, p[0]), math.Max(r.X1, p[0])
		r.Y0, r.Y1 = math.Min(r.Y0, p[1]), math.Max(r.Y1, p[1])
	}
	return r
}

// OverlappingBars returns the first two bars of rs that overlap, and false
// when none does.
func OverlappingBars(rs []Rect) (a, b Rect, ok bool) {
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if rs[i].Overlaps(rs[j]) {
				return rs[i], rs[j], true
			}
		}
	}
	return Rect{}, Rect{}, false
}

// MostShaded returns the most fault-window fills that cover one point of
// the figure (sampled every 2 points): 1 when overlapping windows are
// drawn side by side (stripes), 2 or more where their fills lie on top of
// each other and blend into a colour that no label names.
func (d Doc) MostShaded() int {
	var polys [][][2]float64
	var boxes []Rect
	for _, s := range d.Shapes() {
		if s.Fill != "" && isShade(s.Fill) && len(s.Points) >= 3 {
			polys, boxes = append(polys, s.Points), append(boxes, bounds(s.Points))
		}
	}
	if len(polys) == 0 {
		return 0
	}
	all := bounds(slices.Concat(polys...))
	most := 0
	for x := math.Floor(all.X0) + 0.5; x < all.X1; x += 2 {
		for y := math.Floor(all.Y0) + 0.5; y < all.Y1; y += 2 {
			n := 0
			for i, p := range polys {
				b := boxes[i]
				if x > b.X0 && x < b.X1 && y > b.Y0 && y < b.Y1 && inside(p, x, y) {
					n++
				}
			}
			most = max(most, n)
		}
	}
	return most
}

// inside reports whether (x, y) is inside the polygon (ray casting).
func inside(poly [][2]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a[1] > y) != (b[1] > y) && x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// Panel returns the texts of the panel titled title: from its title to
// the next of the titles given (or the end), in the order the figure
// draws them (title, window labels, axes, legend).
func (d Doc) Panel(t testing.TB, title string, titles ...string) []string {
	t.Helper()
	start := slices.Index(d.Texts, title)
	if start < 0 {
		t.Fatalf("figure %s has no panel %q; it shows %q", d.Name, title, d.Texts)
	}
	end := len(d.Texts)
	for i := start + 1; i < len(d.Texts); i++ {
		if slices.Contains(titles, d.Texts[i]) {
			end = i
			break
		}
	}
	return d.Texts[start:end]
}
