package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// rerunCommand is the command line that runs a result's scenario again:
// every parameter that differs from the scenario's default, the network
// when it was not the default, the seed and, for repeated runs, their
// number. Parsed again it gives the result's parameters (a test checks
// this for every stored result).
func rerunCommand(spec scenarios.Spec, res *report.Result, net string) string {
	args := rerunArgs(spec, res.Params, net)
	args = append(args, "--seed", fmt.Sprint(res.Seed))
	if n := requestedRuns(res.Runs); n > 1 || res.MetricStats != nil {
		args = append(args, "--runs", fmt.Sprint(max(n, 1)))
	}
	words := []string{"go", "run", "./cmd/experiments", spec.Name}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// rerunArgs are the flags that set params, leaving out those at the
// scenario's default; a duration the scenario derives from its other
// flags is given only where that derivation does not give it.
func rerunArgs(spec scenarios.Spec, params map[string]any, net string) []string {
	want := normalParams(params)
	var args []string
	if net != "" && net != "loopback" {
		args = append(args, "--net="+net)
	}
	defaults := parsedParams(spec, args)
	for _, k := range report.SortedKeys(want) {
		if k != "duration" && fmt.Sprint(defaults[k]) != fmt.Sprint(want[k]) {
			args = append(args, fmt.Sprintf("--%s=%v", k, want[k]))
		}
	}
	if d, ok := want["duration"]; ok && fmt.Sprint(parsedParams(spec, args)["duration"]) != fmt.Sprint(d) {
		args = append(args, fmt.Sprintf("--duration=%v", d))
	}
	return args
}

// parsedParams are the parameters args give the scenario (as they read
// from a result's JSON), nil when they do not parse.
func parsedParams(spec scenarios.Spec, args []string) map[string]any {
	_, _, params, err := scenarios.ParseSaved(spec, args)
	if err != nil {
		return nil
	}
	return normalParams(params)
}

// normalParams passes parameters through JSON, so that those of a run and
// those read from its stored result print alike.
func normalParams(p map[string]any) map[string]any {
	b, err := json.Marshal(p)
	out := map[string]any{}
	if err != nil || json.Unmarshal(b, &out) != nil {
		return p
	}
	return out
}

// requestedRuns is how many runs repeated runs asked for (retries left out).
func requestedRuns(rs []report.RunSummary) int {
	n := 0
	for _, r := range rs {
		if !r.Retry {
			n++
		}
	}
	return n
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%-]+$`)

// shellQuote quotes a word for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
