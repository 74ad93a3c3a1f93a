package htmlreport

import (
	"io"

	"sdchaos/report"
)

// Cell is one cell of a Grid: its text, a link where it leads somewhere,
// and a verdict where it states one (drawn as its symbol and word after the
// text). Links are further links after the text ("baseline · candidate").
// Strong marks what a reader should see first (a check that moved).
type Cell struct {
	Text    string
	Href    string
	Links   []Link
	Verdict report.Verdict
	Strong  bool
}

// Grid is a table of a set page: a caption, a header row, rows of cells and
// notes under it.
type Grid struct {
	Caption string
	Header  []Cell
	Rows    [][]Cell
	Notes   []string
}

// Section is one part of a set page: a heading, paragraphs, figures, grids
// and links, in that order.
type Section struct {
	ID      string
	Title   string
	Text    []string
	Figures []Figure
	Grids   []Grid
	Links   []Link
}

// Set is a page about a set of runs: the index of a results directory
// (every article, its scenarios and verdicts), a sweep, a comparison, later
// the registry matrix.
type Set struct {
	// Kind names the kind of page in its heading ("results", "sweep", "compare").
	Kind  string
	Title string
	// Lead are the paragraphs under the title.
	Lead []string
	// Verdict and VerdictText are the set's outcome in words, when it has one.
	Verdict     report.Verdict
	VerdictText string
	// Command makes the set again (or made it).
	Command  string
	Sections []Section
	// Files are the set's own files beside the page (CSV, JSON, Markdown).
	Files []Link
	// Meta lists what produced the set (name, value).
	Meta [][2]string
	Up   []Link
}

// WriteSet writes the page of a set.
func WriteSet(w io.Writer, s Set) error {
	return write(w, s.Title, s.Up, "set", s)
}
