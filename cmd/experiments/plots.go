package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

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
// beside the reports as <name>.<plot>.svg and .png, without running anything.
func plotDir(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return scenarios.Usagef("plot: want one argument, a directory written with --out")
	}
	groups, err := historyGroups(args[0])
	if err != nil {
		return fmt.Errorf("plot: %w", err)
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
	return nil
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
