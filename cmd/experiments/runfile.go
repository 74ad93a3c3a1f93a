package main

import (
	"context"
	"io"
	"strings"

	"sdchaos/experiment"
	"sdchaos/scenarios"
	"sdchaos/scenarios/anyregistry"
)

// runFile is `experiments run FILE [flags]`: it runs a user's experiment
// written as data (YAML or JSON) as a scenario named after it, on the
// world its file or --registry names. A file that cannot be used is one
// line naming the field, exit 2.
func runFile(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return scenarios.Usagef("run: want an experiment file: experiments run FILE [--registry NAME] [flags] (docs/experiments.md)")
	}
	x, err := experiment.Load(args[0])
	if err != nil {
		return scenarios.Usagef("%v", err)
	}
	spec, err := lookup(anyregistry.FileSpec)
	if err != nil {
		return err
	}
	spec.Summary = x.Summary
	return runNamed(ctx, spec, x.Name, append([]string{"--file", args[0]}, args[1:]...), stdout, stderr)
}
