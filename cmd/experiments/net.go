package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"sdchaos/netns"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/scenarios/anyregistry"
)

// exitedWith is run's error once the command ran again inside a private
// network namespace: that run printed its report and its errors, and its
// exit code (130 or 143 when interrupted) is the command's.
type exitedWith struct{ code int }

// Error says which code the run in the namespace exited with.
func (e *exitedWith) Error() string {
	return fmt.Sprintf("the run in the private network namespace exited with %d", e.code)
}

// childCode returns the exit code of a run re-executed in a private
// namespace, when err is one.
func childCode(err error) (int, bool) {
	var e *exitedWith
	if errors.As(err, &e) {
		return e.code, true
	}
	return 0, false
}

// inPrivateNet re-executes the whole command (same arguments, same
// environment) inside a fresh private user + network namespace when it
// asks for one — --net private on its command line, or in a run that
// `all` plans (a variant) — and this process is not inside one yet. It
// reports whether it did; the error is then the run's outcome (exitedWith)
// or why it could not start. Where the kernel refuses the namespace, a
// single scenario fails with one line (exit 2); `all` says so and goes on
// on the host's loopback, where each run that asked for it fails with the
// same line in the summary.
func inPrivateNet(args []string, stderr io.Writer) (bool, error) {
	if netns.Inside() || !asksPrivate(args) {
		return false, nil
	}
	if err := netns.Supported(); err != nil {
		if args[0] == "all" {
			fmt.Fprintf(stderr, "experiments: %v; the runs with --net private will fail, the others run on the host's loopback\n", err)
			return false, nil
		}
		return true, scenarios.Usagef("%v", err)
	}
	code, err := netns.Reexec(args, os.Environ())
	switch {
	case errors.Is(err, netns.ErrUnsupported):
		return true, scenarios.Usagef("%v", err)
	case err != nil:
		return true, fmt.Errorf("running in a private network namespace: %w", err)
	}
	return true, &exitedWith{code: code}
}

// asksPrivate reports whether the command asks for --net private: on its
// own command line, or for `all` in one of the runs it plans. A command
// line that does not parse does not ask (the command reports it).
func asksPrivate(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if args[0] == "run" {
		return netFlag(args[1:]) == rig.Private || runDropsPackets(args[1:])
	}
	if args[0] == "sweep" && len(args) > 1 {
		return netFlag(args[2:]) == rig.Private || privateByDefault(args[1], args[2:])
	}
	if args[0] != "all" {
		return netFlag(args[1:]) == rig.Private || privateByDefault(args[0], args[1:])
	}
	o, err := parseAll(args[1:])
	if err != nil {
		return false
	}
	for _, r := range o.plan() {
		if netFlag(r.args) == rig.Private {
			return true
		}
	}
	return false
}

// privateByDefault reports whether scenario name, at its defaults, drops real packets
// (scenarios.PrivateNetter) and args do not name another network.
func privateByDefault(name string, args []string) bool {
	spec, ok := scenarios.Lookup(name)
	if !ok || hasNetFlag(args) {
		return false
	}
	p, ok := spec.New().(scenarios.PrivateNetter)
	return ok && p.NeedsPrivateNet()
}

// runDropsPackets reports whether the experiments `run` names (its arguments up to the first
// flag: files or built-ins' names) drop real packets and args do not name another network; a
// name that cannot be read does not (run reports it).
func runDropsPackets(args []string) bool {
	var names []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		names = append(names, a)
	}
	if len(names) == 0 || hasNetFlag(args) {
		return false
	}
	x, err := anyregistry.Chained(names)
	if err != nil {
		return false
	}
	c := anyregistry.Config{X: x}
	return c.NeedsPrivateNet()
}

// hasNetFlag reports whether args give --net before a "--".
func hasNetFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "net" {
			return true
		}
	}
	return false
}

// netFlag returns the value of the last --net (or -net, --net=V) in args
// before a "--", as the flag package would take it; loopback when absent.
func netFlag(args []string) rig.Net {
	n := rig.Loopback
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "net" {
			continue
		}
		if !hasVal && i+1 < len(args) {
			i++
			val = args[i]
		}
		n = rig.Net(val)
	}
	return n
}
