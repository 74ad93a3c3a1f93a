package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// errHelp is returned when -h was asked inside a scenario's flags.
var errHelp = errors.New("help shown")

func usage(w io.Writer) {
	fmt.Fprint(w, `experiments — chaos experiments for service discovery against a real 3-node etcd

usage:
  experiments list                 list the scenarios
  experiments help <scenario>      setup, timeline, flags and what counts as reproduced
  experiments <scenario> [flags]   run one scenario

exit codes: 0 reproduced, 1 a check outside its band, 2 usage or setup error, 130 interrupted
`)
}

func list(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSOURCE\tWHAT IT SHOWS")
	for _, s := range scenarios.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Article, s.Summary)
	}
	return tw.Flush()
}

func lookup(name string) (scenarios.Spec, error) {
	s, ok := scenarios.Lookup(name)
	if !ok {
		names := make([]string, 0)
		for _, sp := range scenarios.All() {
			names = append(names, sp.Name)
		}
		return s, scenarios.Usagef("unknown scenario %q (known: %s)", name, strings.Join(names, ", "))
	}
	return s, nil
}

func help(w io.Writer, name string) error {
	spec, err := lookup(name)
	if err != nil {
		return err
	}
	fs, _, _ := newFlagSet(spec)
	writeHelp(w, spec, fs)
	return nil
}

func writeHelp(w io.Writer, spec scenarios.Spec, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s (%s): %s\n\n", spec.Name, spec.Article, spec.Summary)
	if spec.Help != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimSpace(spec.Help))
	}
	fmt.Fprintf(w, "usage: experiments %s [flags]\n\nflags:\n", spec.Name)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// newFlagSet binds the common flags and the scenario's own flags.
func newFlagSet(spec scenarios.Spec) (*flag.FlagSet, *scenarios.Common, scenarios.Config) {
	cfg := spec.New()
	common := scenarios.DefaultCommon()
	if d, ok := cfg.(scenarios.Defaulter); ok {
		d.Defaults(&common)
	}
	fs := flag.NewFlagSet(spec.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int64Var(&common.Seed, "seed", common.Seed, "seed of the run's random source")
	fs.DurationVar(&common.Duration, "duration", common.Duration, "length of the measured timeline")
	fs.IntVar(&common.PortBase, "port-base", common.PortBase, "first loopback port the run may listen on (≥ 9150)")
	fs.BoolVar(&common.Keep, "keep", common.Keep, "keep the run's temp dir (etcd data and logs) and print its path")
	fs.StringVar(&common.Format, "format", common.Format, "stdout format: "+strings.Join(report.Formats, " | "))
	fs.StringVar(&common.Out, "out", common.Out, "also write <scenario>.md and <scenario>.json into this directory")
	cfg.Flags(fs)
	return fs, &common, cfg
}

// commonFlags are not experiment parameters and stay out of Result.Params.
var commonFlags = []string{"seed", "format", "out", "keep", "port-base"}

func validateCommon(c scenarios.Common) error {
	switch {
	case c.Duration <= 0:
		return scenarios.Usagef("--duration (%s) must be positive", c.Duration)
	case c.PortBase < 9150 || c.PortBase > 65000:
		return scenarios.Usagef("--port-base (%d) must be within 9150–65000", c.PortBase)
	case !slices.Contains(report.Formats, c.Format):
		return scenarios.Usagef("--format %q: want one of %s", c.Format, strings.Join(report.Formats, ", "))
	}
	return nil
}

// parse binds and parses a scenario's flags and validates them.
func parse(spec scenarios.Spec, args []string, stdout io.Writer) (*scenarios.Common, scenarios.Config, map[string]string, error) {
	fs, common, cfg := newFlagSet(spec)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(stdout, spec, fs)
			return nil, nil, nil, errHelp
		}
		return nil, nil, nil, scenarios.Usagef("%s: %v; see 'experiments help %s'", spec.Name, err, spec.Name)
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, scenarios.Usagef("%s: unexpected argument %q; see 'experiments help %s'", spec.Name, fs.Arg(0), spec.Name)
	}
	common.Explicit = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { common.Explicit[f.Name] = true })
	if r, ok := cfg.(scenarios.Resolver); ok {
		r.Resolve(common)
	}
	if err := validateCommon(*common); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if err := cfg.Validate(*common); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	params := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(commonFlags, f.Name) {
			params[f.Name] = f.Value.String()
		}
	})
	params["duration"] = common.Duration.String() // a Resolver may have derived it
	return common, cfg, params, nil
}
