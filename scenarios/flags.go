package scenarios

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"sdchaos/netns"
	"sdchaos/report"
	"sdchaos/rig"
)

// NewFlagSet returns a fresh Config of spec and a flag set with the common
// flags and the scenario's own bound to it (the flag set prints nothing).
func NewFlagSet(spec Spec) (*flag.FlagSet, *Common, Config) {
	cfg := spec.New()
	common := DefaultCommon()
	if d, ok := cfg.(Defaulter); ok {
		d.Defaults(&common)
	}
	fs := flag.NewFlagSet(spec.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	offer := spec.Ground.Offers
	fs.Int64Var(&common.Seed, "seed", common.Seed, "seed of the run's random source")
	if offer("duration") {
		fs.DurationVar(&common.Duration, "duration", common.Duration, "length of the measured timeline")
	}
	if offer("port-base") {
		fs.IntVar(&common.PortBase, "port-base", common.PortBase, "first loopback port the run may listen on (≥ 9150)")
	}
	if offer("keep") {
		fs.BoolVar(&common.Keep, "keep", common.Keep, "keep the run's temp dir (etcd data and logs) and print its path")
	}
	if offer("net") {
		fs.Var(&common.Net, "net", "the run's `network`: loopback (the host's, every member on 127.0.0.1) | private (a private "+
			"user + network namespace made for the run, members on 198.18.0.N, packet-level faults; Linux, unprivileged user namespaces)")
	}
	if offer("external") {
		bindExternal(fs, &common.ExternalFlags)
	}
	fs.StringVar(&common.Format, "format", common.Format, "stdout format: "+strings.Join(report.Formats, " | "))
	fs.StringVar(&common.Out, "out", common.Out, "also write <scenario>.md, <scenario>.json, the recorded history (<scenario>.history.jsonl.gz) and <scenario>.html, a page to open in a browser, into this directory")
	fs.IntVar(&common.Runs, "runs", common.Runs, "run N times (seeds seed … seed+N−1) and judge the medians with 95 % intervals (needs N ≥ 6 for an interval)")
	fs.IntVar(&common.RetryInvalid, "retry-invalid", common.RetryInvalid, "how many invalid runs to retry (same seed) before giving up")
	fs.BoolVar(&common.Quiet, "quiet", common.Quiet, "no live progress lines on stderr")
	fs.StringVar(&common.JUnit, "junit", common.JUnit, "also write the checks as JUnit XML (one test case per check) to this file")
	cfg.Flags(fs)
	return fs, &common, cfg
}

// SavedArgs are the flags a saved history keeps to rebuild its judge: the
// run's parameters, and --net when the run used the private network
// (scenarios validate their packet-level flags against it).
func SavedArgs(c *Common, params map[string]any) []string {
	out := make([]string, 0, len(params)+1)
	for _, k := range report.SortedKeys(params) {
		out = append(out, fmt.Sprintf("--%s=%v", k, params[k]))
	}
	if c != nil && c.Net == rig.Private {
		out = append(out, "--net="+c.Net.String())
	}
	return out
}

// nonParams are common flags that are not experiment parameters and stay
// out of Result.Params. --net is one of them: the network a run used shows
// in its recorded events (packet faults have their own kinds), which is
// where the judges read it, so a saved history is judged the same again.
var nonParams = append([]string{"seed", "format", "out", "keep", "port-base", "runs", "retry-invalid", "quiet", "junit", "net"}, externalFlagNames...)

func validateCommon(c Common) error {
	switch {
	case c.Duration <= 0:
		return Usagef("--duration (%s) must be positive", c.Duration)
	case c.PortBase < 9150 || c.PortBase > 65000:
		return Usagef("--port-base (%d) must be within 9150–65000", c.PortBase)
	case !slices.Contains(report.Formats, c.Format):
		return Usagef("--format %q: want one of %s", c.Format, strings.Join(report.Formats, ", "))
	case c.Runs < 1 || c.Runs > 1000:
		return Usagef("--runs (%d) must be within 1–1000", c.Runs)
	case c.RetryInvalid < 0:
		return Usagef("--retry-invalid (%d) must not be negative", c.RetryInvalid)
	}
	if c.Saved {
		return nil
	}
	return validateNet(c.Net)
}

// validateNet requires a private run to be inside its private namespace
// already: the command re-executes itself there (netns.Reexec) before it
// parses; anywhere else (a test, a machine without user namespaces) the
// run would have no packet filter, so it is refused with the reason.
func validateNet(n rig.Net) error {
	if n != rig.Private || netns.Inside() {
		return nil
	}
	if err := netns.Supported(); err != nil {
		return Usagef("--net private: %v", err)
	}
	return Usagef("--net private: this process is not inside a private network namespace (the command re-executes itself into one; a test enters one with netnstest.Enter)")
}

// typed returns a flag's value with its type for JSON: booleans and
// numbers as such, durations and lists in their flag syntax.
func typed(v flag.Value) any {
	g, ok := v.(flag.Getter)
	if !ok {
		return v.String()
	}
	switch x := g.Get().(type) {
	case bool, int, int64, uint, uint64, float64:
		return x
	}
	return v.String()
}

// Parse parses a scenario's command-line args and validates the result. It
// returns the common flags, the config, and the experiment parameters (flag
// → value, for Result.Params). -h yields an error wrapping flag.ErrHelp;
// every other error wraps ErrUsage.
func Parse(spec Spec, args []string) (*Common, Config, map[string]any, error) {
	return parse(spec, args, false)
}

// ParseSaved parses the arguments a saved history was run with, to judge or
// draw it again: as Parse, but the run's environment is not required any
// more (a run made in a private network namespace is judged outside one).
func ParseSaved(spec Spec, args []string) (*Common, Config, map[string]any, error) {
	return parse(spec, args, true)
}

func parse(spec Spec, args []string, saved bool) (*Common, Config, map[string]any, error) {
	fs, common, cfg := NewFlagSet(spec)
	common.Saved = saved
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, nil, err
		}
		return nil, nil, nil, Usagef("%s: %v; see 'experiments help %s'", spec.Name, err, spec.Name)
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, Usagef("%s: unexpected argument %q; see 'experiments help %s'", spec.Name, fs.Arg(0), spec.Name)
	}
	common.Explicit = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { common.Explicit[f.Name] = true })
	if d, ok := cfg.(Defaulter); ok && !common.Explicit["duration"] {
		// A timeline derived from the scenario's own flags follows them.
		scratch := *common
		d.Defaults(&scratch)
		common.Duration = scratch.Duration
	}
	if p, ok := cfg.(PrivateNetter); ok && !common.Explicit["net"] && netns.Inside() && p.NeedsPrivateNet() {
		// the command re-executed itself into the namespace for a run that drops packets, read
		// from its flags (an experiment file's)
		common.Net = rig.Private
	}
	// A duration derived from the scenario's own values is best explained
	// by them, so they are validated first unless --duration was given.
	checks := []func() error{func() error { return validateCommon(*common) }, func() error { return cfg.Validate(*common) }}
	if !common.Explicit["duration"] {
		checks[0], checks[1] = checks[1], checks[0]
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
		}
	}
	ext, err := buildExternal(spec.Name, common.ExternalFlags, *common, cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	common.External = ext
	params := map[string]any{}
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(nonParams, f.Name) {
			params[f.Name] = typed(f.Value)
		}
	})
	if fs.Lookup("duration") != nil {
		params["duration"] = common.Duration.String() // it may have been derived
	}
	return common, cfg, params, nil
}
