package main

import (
	"fmt"

	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/experiment"
	"sdchaos/figure"
	"sdchaos/report"
	"sdchaos/scenarios/anyregistry"
)

// writeMatrixFigure draws one experiment's matrix: per client set-up that
// runs on two or more of the worlds (every set-up when one world ran), the
// share of its calls that failed on each world, as grouped bars; a world's
// own clients are compared in the table, not drawn one bar among empty slots.
func writeMatrixFigure(dir string, x experiment.Experiment, runs []matrixRun) error {
	if dir == "" {
		return nil
	}
	var callers []string
	for _, s := range subjects(runs) {
		if s != anyregistry.SubjectRegistry && seriesIn(runs, s) >= min(2, len(runs)) {
			callers = append(callers, s)
		}
	}
	if len(callers) == 0 {
		return nil // no caller's calls to draw (an experiment of registrations only)
	}
	var bars []figure.Bar
	for i, r := range runs {
		b := figure.Bar{Name: string(r.registry), Color: figure.Color(i)}
		for _, c := range callers {
			b.Values, b.Labels = append(b.Values, failedShare(r, c)), append(b.Labels, failedLabel(r, c))
		}
		bars = append(bars, b)
	}
	p, err := figure.Bars(x.Name+": calls failed per client set-up and registry (each bar: failed / sent; set-ups that run on two or more)", "failed share of its calls (%)", callers, bars...)
	if err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	// room above 100 % for a full bar's count; ticks to 100 only
	p.Y.Min, p.Y.Max = 0, 130
	p.Y.Tick.Marker = percentTicks{}
	f := figure.One("matrix", p)
	// Each client set-up's label needs about 1.6 in: wider than the default
	// 9 in when the worlds together have many.
	f.Width = max(figure.DefaultWidth, vg.Length(len(callers))*vg.Inch*1.6)
	return writePlot(dir, x.Name+".matrix", f)
}

// seriesIn counts the runs that have per-second calls of subject.
func seriesIn(runs []matrixRun, subject string) int {
	n := 0
	for _, r := range runs {
		if r.result != nil {
			if _, ok := r.result.Series[subject]; ok {
				n++
			}
		}
	}
	return n
}

// failedShare is the share (%) of subject's calls that failed in run r
// (NaN when it did not run there).
func failedShare(r matrixRun, subject string) float64 {
	if r.result == nil {
		return float64(nan())
	}
	s, ok := r.result.Series[subject]
	if !ok {
		return float64(nan())
	}
	okN, fail := s.Total()
	return report.Pct(fail, okN+fail)
}

// failedLabel is the count written on subject's bar of run r: "failed /
// sent"; where there is no bar, why: "no such client" (the world has no
// such client set-up: "—" in the table), "cannot run" or "not run" (the
// world did not run the experiment).
func failedLabel(r matrixRun, subject string) string {
	switch {
	case r.cannot != "":
		return "cannot run"
	case r.result == nil:
		return "not run"
	}
	s, ok := r.result.Series[subject]
	if !ok {
		return "no such client"
	}
	okN, fail := s.Total()
	return fmt.Sprintf("%s / %s", figure.Thousands(int64(fail)), figure.Thousands(int64(okN+fail)))
}

// percentTicks label 0 to 100 % every 20, minor ticks every 5: an axis
// drawn past 100 for the bars' labels shows no share above it.
type percentTicks struct{}

// Ticks implements plot.Ticker.
func (percentTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for v := 0.0; v <= 100; v += 5 {
		t := plot.Tick{Value: v}
		if int(v)%20 == 0 {
			t.Label = fmt.Sprint(v)
		}
		out = append(out, t)
	}
	return out
}

// writePlot renders f as <dir>/<base>.svg and .png.
func writePlot(dir, base string, f figure.Plot) error {
	for ext, render := range map[string]func(figure.Plot) ([]byte, error){".svg": figure.SVG, ".png": figure.PNG} {
		b, err := render(f)
		if err != nil {
			return fmt.Errorf("matrix: drawing %s: %w", base, err)
		}
		if err := os.WriteFile(filepath.Join(dir, base+ext), b, 0o644); err != nil {
			return fmt.Errorf("matrix: %w", err)
		}
	}
	return nil
}
