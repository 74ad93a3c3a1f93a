// Command experiments runs the service-discovery chaos experiments.
//
//	experiments list
//	experiments help <scenario>
//	experiments <scenario> [flags]
//
// Exit codes: 0 every check inside its band (reproduced, or differing from
// the article with a stated cause), 1 a check outside its band, 2 usage
// error or the experiment could not run, 3 the run could not judge
// (invalid), 130 interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"sdchaos/childproc"
	"sdchaos/scenarios"
)

// Exit codes.
const (
	exitReproduced    = 0
	exitNotReproduced = 1
	exitError         = 2
	exitInvalid       = 3
	exitInterrupted   = 130
)

// errNotReproduced is returned by run when a check is outside its band.
var errNotReproduced = errors.New("not reproduced")

// errInvalid is returned by run when the run could not judge a check.
var errInvalid = errors.New("invalid run")

// errInterrupted is returned by run when Ctrl-C or SIGTERM ended the run.
var errInterrupted = errors.New("interrupted")

func main() {
	childproc.Dispatch()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return exitReproduced
	case errors.Is(err, errNotReproduced):
		return exitNotReproduced
	case errors.Is(err, errInvalid):
		return exitInvalid
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "experiments: interrupted; every child process stopped and temp data removed")
		return exitInterrupted
	case errors.Is(err, errHelp):
		return exitReproduced
	}
	fmt.Fprintln(stderr, "experiments: "+err.Error())
	return exitError
}

// run parses args and runs one command.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return scenarios.Usagef("no command given; try 'experiments list'")
	}
	switch args[0] {
	case "list":
		return list(stdout, args[1:])
	case "all":
		return runAll(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return help(stdout, args[1])
		}
		usage(stdout)
		return nil
	}
	return runScenario(ctx, args[0], args[1:], stdout, stderr)
}
