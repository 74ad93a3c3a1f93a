package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// attachPlots attaches the plots of rr's first saved history (the only
// one, or the first valid run of repeated runs) to rr's result, rebuilding
// the scenario's config from the saved arguments. A result without a
// saved history (an invalid run) gets no plot.
func attachPlots(rr *repeated) error {
	if len(rr.histories) == 0 {
		return nil
	}
	s := rr.histories[0]
	_, cfg, _, err := savedConfig(s.header)
	if err != nil {
		return err
	}
	return scenarios.AttachPlots(rr.result, cfg, s.history)
}

// plotDir is `experiments plot DIR`: it draws the plots of every saved
// history in DIR again (the first of a repeated run's) and writes them
// beside the reports as <name>.<plot>.svg and .png, and every sweep's
// figure from the sweep's JSON (<scenario>.sweep-<param>.json), and a
// matrix's figures from its matrix.json and stored runs, without running
// anything.
func plotDir(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return scenarios.Usagef("plot: want one argument, a directory written with --out")
	}
	sweeps, err := filepath.Glob(filepath.Join(args[0], "*"+sweepInfix+"*.json"))
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	groups, err := historyGroups(args[0])
	if err != nil && len(sweeps) == 0 {
		return fmt.Errorf("plot: %w (nor a sweep's JSON)", err)
	}
	matrices, err := plotMatrix(args[0])
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	for _, f := range matrices {
		fmt.Fprintln(stdout, f)
	}
	for _, name := range sortedKeys(groups) {
		files := groups[name]
		sort.Strings(files)
		written, err := plotHistory(args[0], name, files[0])
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		for _, f := range written {
			fmt.Fprintln(stdout, filepath.Join(args[0], f))
		}
	}
	for _, path := range sweeps {
		written, err := plotSweep(path)
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		for _, f := range written {
			fmt.Fprintln(stdout, f)
		}
	}
	return nil
}

// plotSweep draws a sweep's figure again from its JSON, beside it.
func plotSweep(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sr sweepResult
	if err := json.Unmarshal(b, &sr); err != nil {
		return nil, fmt.Errorf("not a sweep's JSON: %w", err)
	}
	sr.restoreColors()
	base := strings.TrimSuffix(path, ".json")
	if err := sr.writePlot(base); err != nil {
		return nil, err
	}
	return []string{base + ".svg", base + ".png"}, nil
}

// restoreColors gives the curves the colours the scenario names for them
// (JSON does not keep them): the scenario's curves at the first point.
func (sr *sweepResult) restoreColors() {
	spec, ok := scenarios.Lookup(sr.Scenario)
	if !ok || len(sr.Points) == 0 {
		return
	}
	_, cfg, _, err := scenarios.Parse(spec, append(append([]string(nil), sr.Args...), "--"+sr.Param, sr.Points[0].Value))
	sw, isSweeper := cfg.(scenarios.Sweeper)
	if err != nil || !isSweeper {
		return
	}
	for _, c := range sw.Curves() {
		for i := range sr.Curves {
			if sr.Curves[i].Name == c.Name {
				sr.Curves[i].Color = c.Color
			}
		}
	}
}

// plotHistory draws one saved history's plots into dir as <name>.<file>.
func plotHistory(dir, name, path string) ([]string, error) {
	hdr, h, err := readHistoryFile(path)
	if err != nil {
		return nil, err
	}
	_, cfg, _, err := savedConfig(hdr)
	if err != nil {
		return nil, err
	}
	res := report.NewResult(name)
	if err := scenarios.AttachPlots(res, cfg, h); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range res.FileNames {
		file := name + "." + f
		if err := os.WriteFile(filepath.Join(dir, file), res.Files[f], 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", file, err)
		}
		out = append(out, file)
	}
	return out, nil
}

// attachCSV attaches the result's tables, series and metrics as CSV files
// when --format csv and --out are both given (written as <name>.<file>.csv).
func attachCSV(rr *repeated, common scenarios.Common) error {
	if common.Format != "csv" || common.Out == "" {
		return nil
	}
	return rr.result.AttachCSV()
}
