package netns

import (
	"fmt"
	"os"
	"syscall"

	"sdchaos/childproc"
)

// probeCommand is the hidden sub-command Supported runs inside a fresh
// namespace: it opens a filter, applies a random-drop rule and closes it.
const probeCommand = "__netns-probe"

// Exit codes of the hidden sub-commands: the namespace's network could not
// be set up (the command's set-up code), or nf_tables refused the rules.
const (
	exitSetup    = 2
	exitNoFilter = 3
)

func init() {
	childproc.Register(enterCommand, enterMain)
	childproc.Register(probeCommand, probeMain)
}

// enterMain runs first in the namespace: it checks that it is in a new
// network namespace, sets the network up and executes the harness again
// with the original arguments (same process, same namespace).
func enterMain(args []string) int {
	if err := checkInside(); err != nil {
		return fail(err)
	}
	if err := setupNetwork(); err != nil {
		return fail(err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(fmt.Errorf("finding own executable: %w", err))
	}
	argv := append([]string{os.Args[0]}, args...)
	err = syscall.Exec(exe, argv, os.Environ())
	return fail(fmt.Errorf("executing the run in the namespace: %w", err))
}

// probeMain checks that nf_tables accepts the rules the faults use.
func probeMain([]string) int {
	if err := probeFilter(); err != nil {
		fmt.Fprintln(os.Stderr, "netns: "+err.Error())
		return exitNoFilter
	}
	return 0
}

func probeFilter() error {
	f, err := OpenFilter()
	if err != nil {
		return err
	}
	defer f.Close()
	rule := Rule{Match: Match{Dst: MemberAddr(0), DstPort: 9}, Loss: 0.5, Action: Drop}
	a, err := f.Apply("probe", []Rule{rule, {Match: rule.Match, Loss: 1, Action: Reset}})
	if err != nil {
		return err
	}
	if err := a.Remove(); err != nil {
		return err
	}
	return f.Close()
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "netns: "+err.Error())
	return exitSetup
}
