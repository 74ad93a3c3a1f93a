// Command experiments runs the service-discovery chaos experiments.
//
//	experiments list [--markdown]
//	experiments help [<scenario>|<command>]
//	experiments <scenario> [flags]
//	experiments all [flags]
//	experiments compare [--html FILE] OLD NEW
//	experiments recheck [--write] DIR
//	experiments merge [--format F] [--out DIR] SHARD-DIR...
//	experiments plot DIR
//	experiments sweep <scenario> --param NAME VALUES [flags]
//	experiments pages DIR
//
// Exit codes: 0 every check inside its band (reproduced, or differing from
// the article with a stated cause), 1 a check outside its band (or, for
// compare, a check that moved significantly), 2 usage error, 3 the run
// could not judge (invalid) or repeated runs were inconclusive, 4 the
// environment failed (etcd could not start, out of file descriptors), 130
// SIGINT, 143 SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"sdchaos/childproc"
	"sdchaos/ports"
	"sdchaos/rig"
	"sdchaos/scenarios"
)

// Exit codes.
const (
	exitReproduced    = 0
	exitNotReproduced = 1
	exitError         = 2
	exitInvalid       = 3
	exitEnvironment   = 4
	exitInterrupted   = 130
	exitTerminated    = 143
)

// errNotReproduced is returned by run when a check is outside its band.
var errNotReproduced = errors.New("not reproduced")

// errInvalid is returned by run when the run could not judge a check, or
// repeated runs were inconclusive.
var errInvalid = errors.New("invalid run")

// errInterrupted is returned by run when Ctrl-C or SIGTERM ended the run.
var errInterrupted = errors.New("interrupted")

// lastSignal is the signal that cancelled the run (SIGINT or SIGTERM).
var lastSignal atomic.Value

func main() {
	childproc.Dispatch()
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		lastSignal.Store(s)
		signal.Stop(sigs)
		cancel()
	}()
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

func exitCode(err error, stderr io.Writer) int {
	if code, ok := childCode(err); ok {
		return code
	}
	switch {
	case err == nil:
		return exitReproduced
	case errors.Is(err, errNotReproduced):
		return exitNotReproduced
	case errors.Is(err, errInvalid):
		return exitInvalid
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "experiments: interrupted; every child process stopped and temp data removed")
		if s, _ := lastSignal.Load().(os.Signal); s == syscall.SIGTERM {
			return exitTerminated
		}
		return exitInterrupted
	case errors.Is(err, errHelp):
		return exitReproduced
	}
	fmt.Fprintln(stderr, "experiments: "+err.Error())
	if errors.Is(err, scenarios.ErrUsage) || errors.Is(err, ports.ErrInUse) || errors.Is(err, rig.ErrTarget) {
		return exitError
	}
	return exitEnvironment
}

// run parses args and runs one command.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return scenarios.Usagef("no command given; try 'experiments list'")
	}
	if ran, err := inPrivateNet(args, stderr); ran {
		return err
	}
	switch args[0] {
	case "list":
		return list(stdout, args[1:])
	case "all":
		return runAll(ctx, args[1:], stdout, stderr)
	case "compare":
		return compare(args[1:], stdout)
	case "recheck":
		return recheck(args[1:], stdout)
	case "merge":
		return merge(args[1:], stdout)
	case "plot":
		return plotDir(args[1:], stdout)
	case "pages":
		return pages(args[1:], stdout)
	case "sweep":
		return sweep(ctx, args[1:], stdout, stderr)
	case "run":
		return runFile(ctx, args[1:], stdout, stderr)
	case "matrix":
		return matrix(ctx, args[1:], stdout, stderr)
	case "registries":
		return registries(stdout, args[1:])
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return help(stdout, args[1])
		}
		usage(stdout)
		return nil
	}
	return runScenario(ctx, args[0], args[1:], stdout, stderr)
}
