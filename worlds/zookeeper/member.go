package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
	"sdchaos/procstat"
)

// ErrNotOurs is returned (wrapped) by a process action (kill, pause, resume,
// restart) on a member of an ensemble the harness did not start.
var ErrNotOurs = errors.New("member not started by the harness")

// Member is one ZooKeeper server as the harness sees it.
type Member struct {
	// Name is the harness's label ("zk1"); ID the member's myid (0 for an
	// attached member).
	Name string
	ID   int
	// Host is the client address's host (127.0.0.1 for a started member).
	Host string
	// Ports are its ports (only Client for an attached member).
	Ports ServerPorts
	// Dir holds its zoo.cfg, data dir and log ("" when attached).
	Dir string
	// LogPath holds the JVM's stdout and stderr ("" when attached).
	LogPath string

	launch func() (*childproc.Child, error) // nil when attached
	mu     sync.Mutex
	child  *childproc.Child
	paused bool
}

// ClientAddr returns the member's client address (host:port).
func (m *Member) ClientAddr() string {
	if m.Host == ports.Host {
		return ports.Addr(m.Ports.Client)
	}
	return m.Host + ":" + strconv.Itoa(m.Ports.Client)
}

// Started reports whether the harness started (and so may kill) this member.
func (m *Member) Started() bool { return m.launch != nil }

// State reads the member's state from its four-letter words.
func (m *Member) State(ctx context.Context) (State, error) {
	return readState(ctx, m.Name, m.ClientAddr())
}

// Mode reads the member's mode from srvr alone (one exchange, no mntr):
// ModeNotServing while it serves nothing, ModeUnreachable (with the error)
// when it does not answer.
func (m *Member) Mode(ctx context.Context) (Mode, error) {
	text, err := fourLetter(ctx, m.ClientAddr(), "srvr")
	if err != nil {
		return ModeUnreachable, err
	}
	s, err := ParseSrvr(text)
	switch {
	case err != nil:
		return ModeUnreachable, fmt.Errorf("member %s: %w", m.Name, err)
	case !s.Serving:
		return ModeNotServing, nil
	}
	return s.Mode, nil
}

func (m *Member) proc(action string) (*childproc.Child, error) {
	if m.launch == nil {
		return nil, fmt.Errorf("%s zookeeper %s: %w", action, m.Name, ErrNotOurs)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.child == nil || m.child.Exited() {
		return nil, fmt.Errorf("%s zookeeper %s: not running", action, m.Name)
	}
	return m.child, nil
}

// Kill SIGKILLs the member's JVM and waits until it is reaped.
func (m *Member) Kill() error {
	c, err := m.proc("kill")
	if err != nil {
		return err
	}
	c.Kill()
	m.mu.Lock()
	m.paused = false
	m.mu.Unlock()
	return nil
}

// Pause freezes the member's JVM (SIGSTOP) and returns once it is stopped.
func (m *Member) Pause() error {
	c, err := m.proc("pause")
	if err != nil {
		return err
	}
	if err := c.Stop(); err != nil {
		return fmt.Errorf("pause zookeeper %s: %w", m.Name, err)
	}
	m.mu.Lock()
	m.paused = true
	m.mu.Unlock()
	return nil
}

// Resume continues a paused member (SIGCONT).
func (m *Member) Resume() error {
	c, err := m.proc("resume")
	if err != nil {
		return err
	}
	if err := c.Cont(); err != nil {
		return fmt.Errorf("resume zookeeper %s: %w", m.Name, err)
	}
	m.mu.Lock()
	m.paused = false
	m.mu.Unlock()
	return nil
}

// Paused reports whether the member was paused and not resumed since.
func (m *Member) Paused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused
}

// Restart starts a killed member again on its zoo.cfg and data dir; it returns
// once the JVM runs (it rejoins the quorum on its own: poll State).
func (m *Member) Restart() error { return m.start("restart") }

// start launches the member's JVM unless it runs.
func (m *Member) start(action string) error {
	if m.launch == nil {
		return fmt.Errorf("%s zookeeper %s: %w", action, m.Name, ErrNotOurs)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.child != nil && !m.child.Exited() {
		return fmt.Errorf("%s zookeeper %s: still running (pid %d); kill it first", action, m.Name, m.child.Pid())
	}
	c, err := m.launch()
	if err != nil {
		return fmt.Errorf("%s zookeeper %s: %w", action, m.Name, err)
	}
	m.child, m.paused = c, false
	return nil
}

// Alive reports whether the member's JVM runs (false when attached).
func (m *Member) Alive() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.child != nil && !m.child.Exited()
}

// Pid returns the JVM's process id (0 when attached or never started).
func (m *Member) Pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.child == nil {
		return 0
	}
	return m.child.Pid()
}

// RSS returns the JVM's resident set size in bytes.
func (m *Member) RSS() (int64, error) {
	c, err := m.proc("reading the RSS of")
	if err != nil {
		return 0, err
	}
	return procstat.RSS(c.Pid())
}

// CPU returns the JVM's user + system CPU time so far.
func (m *Member) CPU() (time.Duration, error) {
	c, err := m.proc("reading the CPU of")
	if err != nil {
		return 0, err
	}
	st, err := procstat.Read(c.Pid())
	return st.CPU, err
}
