package netns

import (
	"fmt"
	"os"
	"runtime"
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
	ppid := os.Getppid()
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
	if err := armParentDeath(ppid); err != nil {
		return fail(err)
	}
	err = syscall.Exec(exe, argv, os.Environ())
	return fail(fmt.Errorf("executing the run in the namespace: %w", err))
}

// armParentDeath locks the calling goroutine to its thread and sets that
// thread's parent-death signal (SIGKILL) for the execve that follows. The
// kernel keeps the signal per thread, and an execve keeps only the executing
// thread's: the one set at fork (SysProcAttr.Pdeathsig) is the main
// thread's, and a goroutine that moved to another thread would execute
// without it, so the run would outlive a SIGKILLed harness. ppid is the
// parent at the start: if it is gone by now, it died before the signal
// was set again (until then the main thread's signal kills the process).
func armParentDeath(ppid int) error {
	runtime.LockOSThread()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return fmt.Errorf("setting the parent-death signal: %w", errno)
	}
	if os.Getppid() != ppid {
		return fmt.Errorf("the harness (pid %d) is gone", ppid)
	}
	return nil
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
