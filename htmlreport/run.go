package htmlreport

import (
	"fmt"
	"io"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// Run is the page of one run, or of repeated runs of one scenario
// (--runs N: the result then holds medians with their intervals and the
// list of runs).
type Run struct {
	Result *report.Result
	// Name is the file stem of the run's outputs (a variant's or a sweep
	// point's name; the scenario's when empty).
	Name string
	// Source is the article section the scenario reproduces ("article 47.1").
	Source string
	// Summary is the scenario's one line; Why a variant's reason to exist.
	Summary string
	Why     string
	// Help is the scenario's longer description (experiments help NAME).
	Help string
	// Command runs it again.
	Command string
	Figures []Figure
	// Files are the run's files beside the page: the saved history,
	// porcupine's page, the Markdown and the JSON.
	Files []Link
	// RunLinks are, per seed of repeated runs, that run's files.
	RunLinks map[int64][]Link
	// Up are the pages above this one (the index, a sweep).
	Up []Link
	// Ran names what the run ran, in one line under its title: the
	// metadata's server line, or, for a result written before runs named
	// their server, what the scenario's parameters say ("" when nothing).
	Ran string
	// EtcdRan says that etcd members ran in the run: only then does "what
	// ran" give the metadata's etcd version (the harness embeds etcd's
	// module in every run, whatever registry ran).
	EtcdRan bool
}

// WriteRun writes the page of a run.
func WriteRun(w io.Writer, r Run) error {
	v := newRunView(r)
	return write(w, v.Heading, r.Up, "run", v)
}

// runView is a Run made ready for its template.
type runView struct {
	Run
	Heading    string
	Repeated   bool
	Checks     []checkRow
	Tables     []report.Table
	Gates      []report.Gate
	Runs       []runRow
	Metrics    [][2]string
	Events     []eventRow
	Params     [][2]string
	Meta       [][2]string
	Timeline   string
	CheckCount string
}

// checkRow is one check as the page shows it.
type checkRow struct {
	report.Check
	// Figure is the article's figure in the check's unit ("—" when it gives none).
	Figure string
	// Agrees is the interval of measurements that agree with the figure
	// ("" when the article gives none).
	Agrees string
	// ShowCause says that the cause row follows this check: checks in a
	// row with the same verdict and cause show it once, after the last.
	ShowCause bool
	// Shared is how many checks in a row the cause row stands for (1: this one).
	Shared int
}

// runRow is one of repeated runs.
type runRow struct {
	report.RunSummary
	Wall  string
	Links []Link
}

// eventRow is one event of the timeline.
type eventRow struct {
	history.Event
	At      string
	Targets string
}

func newRunView(r Run) runView {
	res := r.Result
	if r.Name == "" {
		r.Name = res.Scenario
	}
	v := runView{Run: r, Heading: r.Name, Repeated: res.MetricStats != nil || anyStats(res.Checks)}
	for _, c := range res.Checks {
		v.Checks = append(v.Checks, newCheckRow(c))
	}
	shareCauses(v.Checks)
	v.Tables, v.Gates = res.Tables, res.Gates
	for _, s := range res.Runs {
		v.Runs = append(v.Runs, runRow{RunSummary: s, Wall: fmt.Sprintf("%.1f s", s.WallS), Links: r.RunLinks[s.Seed]})
	}
	if !v.Repeated {
		for _, k := range res.Metrics.Names() {
			v.Metrics = append(v.Metrics, [2]string{k, num(res.Metrics[k])})
		}
	}
	for _, e := range res.Events {
		v.Events = append(v.Events, eventRow{Event: e, At: seconds(e.At), Targets: strings.Join(e.Targets, ", ")})
	}
	for _, k := range report.SortedKeys(res.Params) {
		val := fmt.Sprint(res.Params[k])
		if val == "" {
			val = "(empty)"
		}
		v.Params = append(v.Params, [2]string{k, val})
	}
	v.Meta, v.Timeline = metaRows(res, r.Ran, r.EtcdRan), timeline(res)
	v.CheckCount = fmt.Sprintf("%d checks", len(res.Checks))
	return v
}

func anyStats(cs []report.Check) bool {
	for _, c := range cs {
		if c.Stats != nil {
			return true
		}
	}
	return false
}

// shareCauses shows a cause once for checks in a row with the same
// verdict and cause: after the last of them, saying how many it explains.
func shareCauses(rows []checkRow) {
	run := 0
	for i := range rows {
		if rows[i].Cause == "" {
			run = 0
			continue
		}
		run++
		rows[i].Shared = run
		next := i + 1
		rows[i].ShowCause = next == len(rows) || rows[next].Cause != rows[i].Cause || rows[next].Verdict != rows[i].Verdict
		if rows[i].ShowCause {
			run = 0
		}
	}
}

func newCheckRow(c report.Check) checkRow {
	row := checkRow{Check: c, Figure: "—"}
	unit := ""
	if c.Unit != "" {
		unit = " " + c.Unit
	}
	switch {
	case c.YesNo && c.ArticleLo != nil && *c.ArticleLo == *c.ArticleHi:
		row.Figure = yesNoWord(c, *c.ArticleLo)
	case c.ArticleLo != nil && c.ArticleHi != nil:
		row.Figure = num(*c.ArticleLo) + unit
		if *c.ArticleHi != *c.ArticleLo {
			row.Figure = num(*c.ArticleLo) + "–" + num(*c.ArticleHi) + unit
		}
	}
	if c.AgreeLo != nil && c.AgreeHi != nil && !c.YesNo {
		row.Agrees = num(*c.AgreeLo) + "–" + num(*c.AgreeHi) + unit
		if *c.AgreeLo == *c.AgreeHi {
			row.Agrees = "= " + num(*c.AgreeLo) + unit
		}
	}
	return row
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func timeline(r *report.Result) string {
	switch {
	case r.WallSeconds > 0 && r.TimelineSeconds > 0:
		return fmt.Sprintf("wall time %.1f s for a %.1f s timeline (%.2f×)", r.WallSeconds, r.TimelineSeconds, r.WallSeconds/r.TimelineSeconds)
	case r.WallSeconds > 0:
		return fmt.Sprintf("wall time %.1f s", r.WallSeconds)
	}
	return ""
}

// metaRows is what produced the result, as name and value: the server and
// every component the metadata names (ran where it names none), and the
// etcd version only where etcd ran.
func metaRows(r *report.Result, ran string, etcdRan bool) [][2]string {
	rows := [][2]string{{"seed", fmt.Sprint(r.Seed)}}
	m := r.Meta
	if m == nil {
		return rows
	}
	rows = append(rows, serverRow(m, ran))
	for _, c := range m.Components {
		rows = append(rows, componentRow(c))
	}
	rows = append(rows, [2]string{"harness revision", m.Harness}, [2]string{"Go", m.Go})
	if etcdRan && len(m.Components) == 0 {
		rows = append(rows, [2]string{"etcd", m.Etcd})
	}
	rows = append(rows,
		[2]string{"machine", fmt.Sprintf("%s/%s, %d CPUs", m.OS, m.Arch, m.CPUs)},
		[2]string{"started", m.Start.UTC().Format("2006-01-02 15:04:05 MST")},
		[2]string{"made by the command", strings.Join(m.Command, " ")})
	if m.Rejudged != nil {
		rows = append(rows, [2]string{"judged again", fmt.Sprintf("%s by harness %s, from the saved histories", m.Rejudged.At.Format("2006-01-02 15:04 MST"), m.Rejudged.Harness)})
	}
	return rows
}

// serverRow names the registry server: the metadata's line, else ran with
// a note that the result names none.
func serverRow(m *history.Meta, ran string) [2]string {
	switch {
	case m.Server != "":
		return [2]string{"server", m.Server}
	case ran != "":
		return [2]string{"server", ran + " (this result was written before runs recorded their server and components)"}
	}
	return [2]string{"server", "not recorded: this result was written before runs recorded their server and components (its title says what ran)"}
}

// componentRow is one component: its name and role, its version, where it
// comes from and who ran it.
func componentRow(c history.Component) [2]string {
	v := fmt.Sprintf("%s (%s; ran by %s; read from %s)", c.Version, c.Coordinates, c.UsedBy, c.Source)
	if c.Republication != "" {
		v += "; " + c.Republication
	}
	return [2]string{fmt.Sprintf("%s (%s)", c.Name, c.Role), v}
}

// yesNoWord is the article's figure of a yes/no check in the check's own
// words where the band or the measurement says it, else yes or no.
func yesNoWord(c report.Check, v float64) string {
	switch {
	case float64(c.BandLo) == v && c.BandHi == c.BandLo:
		return c.Band
	case float64(c.Measured) == v && c.Stats == nil:
		return c.MeasuredText
	case v == 1:
		return "yes"
	}
	return "no"
}
