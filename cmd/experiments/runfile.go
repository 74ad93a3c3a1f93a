package main

import (
	"context"
	"io"
	"strings"

	"sdchaos/scenarios"
	"sdchaos/scenarios/anyregistry"
)

// runFile is `experiments run FILE... [flags]`: it runs a user's
// experiment written as data (YAML or JSON) as a scenario named after it,
// on the world its file or --registry names; several experiments (files or
// built-ins' names) run one after another on one started world, judged as
// one run (experiment.Chain). A file that cannot be used is one line
// naming the field, exit 2.
func runFile(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var names, fileArgs []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		names, fileArgs, args = append(names, args[0]), append(fileArgs, "--file", args[0]), args[1:]
	}
	if len(names) == 0 {
		return scenarios.Usagef("run: want an experiment file: experiments run FILE... [--registry NAME] [flags] (docs/experiments.md)")
	}
	x, err := anyregistry.Chained(names)
	if err != nil {
		return err
	}
	spec, err := lookup(anyregistry.FileSpec)
	if err != nil {
		return err
	}
	spec.Summary = x.Summary
	return runNamed(ctx, spec, x.Name, append(fileArgs, args...), stdout, stderr)
}
