package netns

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// enterCommand is the hidden sub-command that the namespace's first process
// runs: it sets the network up and executes the harness again.
const enterCommand = "__netns-enter"

// Cmd is one run to re-execute inside a private namespace.
type Cmd struct {
	// Args are the arguments after the program name (os.Args[1:] for the
	// command itself).
	Args []string
	// Env is the child's environment (os.Environ() usually); the marker that
	// Inside reads is added.
	Env []string
	// Stdin, Stdout and Stderr default to the process's own.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Reexec runs the current executable with args and env in a fresh user +
// network namespace (see Cmd.Run).
func Reexec(args, env []string) (exitCode int, err error) {
	return Cmd{Args: args, Env: env}.Run()
}

// Run starts the current executable in a fresh user + network namespace
// (uid and gid 0 inside, mapped to the caller's), waits for it while
// forwarding SIGINT, SIGTERM and SIGHUP to it, and returns its exit code
// (128+n when a signal n ended it). The child has the parent-death signal
// set to SIGKILL, so it, and with it the namespace, does not outlive the
// caller. An error means the child could not be started: it wraps
// ErrUnsupported when the kernel refused the namespace.
func (c Cmd) Run() (int, error) {
	cmd, err := c.command()
	if err != nil {
		return 0, err
	}
	// The parent-death signal fires when the thread that forked the child
	// ends, so that thread stays with this goroutine until the child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return 0, refused(err)
	}
	stop := forwardSignals(cmd.Process)
	defer stop()
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, fmt.Errorf("waiting for the namespace's run: %w", err)
	}
	return exitCode(cmd.ProcessState), nil
}

// command builds the child: "<exe> __netns-enter <args…>" with argv[0]
// kept, in its own process group (a terminal's Ctrl-C reaches only the
// caller, which forwards it once).
func (c Cmd) command() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding own executable: %w", err)
	}
	host, err := netnsInode()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{enterCommand}, c.Args...)...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(withoutMarker(c.Env), envMarker+"="+strconv.FormatUint(host, 10))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = or(c.Stdin, os.Stdin), orW(c.Stdout, os.Stdout), orW(c.Stderr, os.Stderr)
	cmd.SysProcAttr = namespaceAttr()
	return cmd, nil
}

// namespaceAttr asks for a new user and network namespace in which the
// caller's uid and gid are 0 (setgroups denied, as an unprivileged mapping
// requires).
func namespaceAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
		Setpgid:                    true,
	}
}

func withoutMarker(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, envMarker+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func or(r, def io.Reader) io.Reader {
	if r == nil {
		return def
	}
	return r
}

func orW(w, def io.Writer) io.Writer {
	if w == nil {
		return def
	}
	return w
}

// forwardSignals relays SIGINT, SIGTERM and SIGHUP to p until stop is called.
func forwardSignals(p *os.Process) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = p.Signal(s)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(sigs); close(done) }
}

// exitCode returns the child's exit status, or 128+n when signal n ended it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
