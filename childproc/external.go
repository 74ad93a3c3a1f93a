package childproc

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// ExternalSpec describes a program that is not this binary (a user's
// discovery client, a JVM): it runs in its own process group, dies with
// the harness (parent-death signal, the reaper), and its stdout is handed
// back unless StdoutToLog sends it to the log file.
type ExternalSpec struct {
	// Name labels the child in logs and errors.
	Name string
	// Path and Args are the program and its arguments.
	Path string
	Args []string
	// Env is added to the harness's environment.
	Env []string
	// LogPath receives the program's stderr.
	LogPath string
	// StdoutToLog writes stdout to LogPath too (a server whose console log
	// nobody reads); StartExternal then returns no reader.
	StdoutToLog bool
}

// StartExternal starts spec's program and returns the child and its stdout
// (nil with StdoutToLog). Kill ends its whole process group.
func (s *Supervisor) StartExternal(spec ExternalSpec) (*Child, io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	logf, err := os.OpenFile(spec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s: opening log: %w", spec.Name, err)
	}
	defer logf.Close()
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Stderr = logf
	var out *os.File
	if spec.StdoutToLog {
		cmd.Stdout = logf
	} else {
		// Our own pipe, not StdoutPipe: Wait (run as soon as the program
		// exits) must not close it before every line has been read.
		var pw *os.File
		if out, pw, err = os.Pipe(); err != nil {
			return nil, nil, fmt.Errorf("starting %s: %w", spec.Name, err)
		}
		defer pw.Close()
		cmd.Stdout = pw
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.Env = append(append(os.Environ(), spec.Env...), envParentPID+"="+strconv.Itoa(os.Getpid()))
	wdR, wdW, err := os.Pipe() // never read: Child.wait closes it like any child's
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	wdR.Close()
	c := &Child{name: spec.Name, cmd: cmd, watchdog: wdW, done: make(chan struct{}), sup: s, group: true}
	if err := cmd.Start(); err != nil {
		wdW.Close()
		if out != nil {
			out.Close()
		}
		return nil, nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	s.children[c] = true
	s.tell("pid " + strconv.Itoa(cmd.Process.Pid))
	go c.wait()
	if out == nil {
		return c, nil, nil
	}
	return c, out, nil
}
