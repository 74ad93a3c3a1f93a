package childproc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"sdchaos/procstat"
)

// Supervisor starts children and owns the run's temp dirs. Close must be
// called (it is idempotent). Safe for concurrent use.
type Supervisor struct {
	log      *slog.Logger
	exe      string
	mu       sync.Mutex
	children map[*Child]bool
	dirs     map[string]bool
	reaper   *exec.Cmd
	reaperIn io.WriteCloser
	closed   bool
}

// NewSupervisor starts the reaper and returns a supervisor.
func NewSupervisor(log *slog.Logger) (*Supervisor, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding own executable: %w", err)
	}
	s := &Supervisor{log: log, exe: exe, children: map[*Child]bool{}, dirs: map[string]bool{}}
	cmd := exec.Command(exe, reaperCmd)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(os.Environ(), envParentPID+"="+strconv.Itoa(os.Getpid()))
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("starting reaper: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting reaper: %w", err)
	}
	s.reaper, s.reaperIn = cmd, in
	return s, nil
}

func (s *Supervisor) tell(line string) {
	if s.reaperIn != nil {
		_, _ = io.WriteString(s.reaperIn, line+"\n")
	}
}

// TempDir creates a fresh temp dir. Unless keep is set it is removed by
// Close, or by the reaper if the harness dies.
func (s *Supervisor) TempDir(pattern string, keep bool) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("creating temp dir: %w", err)
	}
	if !keep {
		s.mu.Lock()
		s.dirs[dir] = true
		s.tell("dir " + dir)
		s.mu.Unlock()
	}
	return dir, nil
}

// AdoptDir has Close, or the reaper if the harness dies, remove dir, which the caller made
// elsewhere than in the temp dir (a cgroup, say: the kernel removes it once its processes are
// gone, and Close and the reaper remove it after killing the children).
func (s *Supervisor) AdoptDir(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs[dir] = true
	s.tell("dir " + dir)
}

// Spec describes a child to start.
type Spec struct {
	// Name labels the child in logs and errors ("etcd n1").
	Name string
	// Command is the hidden sub-command (registered with Register).
	Command string
	// Args follow the sub-command.
	Args []string
	// LogPath receives the child's stdout and stderr (created/appended).
	LogPath string
	// Control gives the child a line-based control channel (see Child.Control
	// and Serve).
	Control bool
}

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("supervisor closed")

// Start starts a child process running spec.Command.
func (s *Supervisor) Start(spec Spec) (*Child, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	logf, err := os.OpenFile(spec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("starting %s: opening log: %w", spec.Name, err)
	}
	defer logf.Close()
	wdR, wdW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: watchdog pipe: %w", spec.Name, err)
	}
	defer wdR.Close()
	cmd := exec.Command(s.exe, append([]string{spec.Command}, spec.Args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.ExtraFiles = []*os.File{wdR}
	cmd.Env = append(os.Environ(), envParentPID+"="+strconv.Itoa(os.Getpid()), envWatchdogFD+"=3")
	c := &Child{name: spec.Name, cmd: cmd, watchdog: wdW, done: make(chan struct{}), sup: s}
	if spec.Control {
		if err := c.attachControl(); err != nil {
			wdW.Close()
			return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
		}
	}
	if err := cmd.Start(); err != nil {
		wdW.Close()
		c.closeControl()
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	c.afterStart()
	s.children[c] = true
	s.tell("pid " + strconv.Itoa(cmd.Process.Pid))
	go c.wait()
	return c, nil
}

func (s *Supervisor) forget(c *Child) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.children, c)
	s.tell("unpid " + strconv.Itoa(c.Pid()))
}

// Close kills every live child, waits for them, removes the temp dirs and
// stops the reaper. It is safe to call more than once.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	kids := make([]*Child, 0, len(s.children))
	for c := range s.children {
		kids = append(kids, c)
	}
	s.mu.Unlock()
	for _, c := range kids {
		c.Kill()
	}
	var errs []error
	s.mu.Lock()
	for d := range s.dirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", d, err))
		}
	}
	s.tell("exit")
	s.mu.Unlock()
	if s.reaperIn != nil {
		s.reaperIn.Close()
		waitTimeout(s.reaper, 2*time.Second)
	}
	return errors.Join(errs...)
}

func waitTimeout(cmd *exec.Cmd, d time.Duration) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Child is a running (or exited) child process.
type Child struct {
	name     string
	cmd      *exec.Cmd
	watchdog *os.File
	done     chan struct{}
	sup      *Supervisor
	waitErr  error

	ctlMu    sync.Mutex
	ctlW     *os.File
	ctlR     *bufio.Reader
	ctlFiles []*os.File // child ends, closed after start
	ctlOwn   []*os.File // our ends
	// group kills the child's whole process group (an external program
	// may have started its own children).
	group bool
}

// Name returns the child's label.
func (c *Child) Name() string { return c.name }

// Pid returns the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Done is closed when the child has exited and been reaped.
func (c *Child) Done() <-chan struct{} { return c.done }

// Exited reports whether the child has exited.
func (c *Child) Exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Err returns the child's exit error once Done is closed.
func (c *Child) Err() error {
	<-c.done
	return c.waitErr
}

func (c *Child) wait() {
	c.waitErr = c.cmd.Wait()
	c.watchdog.Close()
	c.closeControl()
	c.sup.forget(c)
	close(c.done)
}

// Kill sends SIGKILL (which also ends a stopped process) and waits until the
// child has been reaped. Killing an exited child is a no-op.
func (c *Child) Kill() {
	if !c.Exited() {
		if c.group {
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		}
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-c.done
}

// Signal sends sig to the child (no-op if it has exited).
func (c *Child) Signal(sig syscall.Signal) error {
	if c.Exited() {
		return fmt.Errorf("%s has exited", c.name)
	}
	if err := c.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signalling %s: %w", c.name, err)
	}
	return nil
}

// Stop freezes the child (SIGSTOP).
// It returns once the kernel reports the process stopped (a signal is
// delivered asynchronously: a thread running on another core may still
// answer a request for a moment), or an error after a second.
func (c *Child) Stop() error {
	if err := c.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	deadline := time.Now().Add(time.Second)
	for !stopped(c.Pid()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d not stopped 1 s after SIGSTOP", c.Pid())
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// stopped reports whether process pid is in the stopped state (T).
func stopped(pid int) bool {
	st, err := procstat.Read(pid)
	return err == nil && st.Stopped()
}

// Cont resumes a frozen child (SIGCONT).
func (c *Child) Cont() error { return c.Signal(syscall.SIGCONT) }
