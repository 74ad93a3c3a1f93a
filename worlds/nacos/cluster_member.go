package nacos

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"sdchaos/childproc"
)

// Member is one member of a Cluster: its fixed identity (name, host, ports, nacos.home with
// its data and cluster.conf) and its current JVM, which Restart replaces.
type Member struct {
	name  string
	index int
	host  string
	ports MemberPorts
	home  string
	spec  ClusterSpec
	run   runFiles
	sup   *childproc.Supervisor

	life sync.Mutex // serializes starts and restarts
	mu   sync.Mutex // guards srv and jvms (held briefly: observers read them during a restart)
	srv  *Server
	// jvms are every JVM launched for the member, the first one first.
	jvms []*Server
}

// Name returns the member's label (nacos1, nacos2, …).
func (m *Member) Name() string { return m.name }

// Index returns the member's position in cluster.conf (0-based).
func (m *Member) Index() int { return m.index }

// Host returns the address every listener of the member binds.
func (m *Member) Host() string { return m.host }

// Ports returns the member's ports.
func (m *Member) Ports() MemberPorts { return m.ports }

// Address returns the member's name in Nacos, host:main port (cluster.conf, the members API,
// DistroMapper's answers).
func (m *Member) Address() string { return net.JoinHostPort(m.host, strconv.Itoa(m.ports.Main)) }

// Addr returns the member's HTTP address (the same as Address).
func (m *Member) Addr() string { return m.Address() }

// GRPCAddr returns the member's SDK gRPC address, host:main+1000.
func (m *Member) GRPCAddr() string { return net.JoinHostPort(m.host, strconv.Itoa(m.ports.GRPC)) }

// Home returns nacos.home: cluster.conf, the data dir (JRaft logs and snapshots, the embedded
// store) and the logs, kept across restarts; a temp dir of the supervisor.
func (m *Member) Home() string { return m.home }

// Server returns the member's current JVM (nil before its first launch). Its Instances, Watch,
// Events, RSS and Ready read that process; NewLink(alloc, m.Server(), …) puts a client's path
// to the member behind a fault proxy (the addresses stay the same across restarts).
func (m *Member) Server() *Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.srv
}

// Pid returns the current JVM's process id (0 before the first launch).
func (m *Member) Pid() int {
	if s := m.Server(); s != nil {
		return s.Pid()
	}
	return 0
}

// Alive reports whether the current JVM runs (a stopped one counts as running).
func (m *Member) Alive() bool {
	s := m.Server()
	return s != nil && s.Alive()
}

// start launches the member's first JVM and waits for its readiness endpoint.
func (m *Member) start(ctx context.Context) error {
	m.life.Lock()
	defer m.life.Unlock()
	return m.launchLocked(ctx)
}

// launchLocked starts a JVM on the member's home and ports and waits until its readiness
// endpoint answers ok (Member.ReadyTimeout); m.life is held.
func (m *Member) launchLocked(ctx context.Context) error {
	s := &Server{name: m.name, port: m.ports.Main, host: m.host, home: m.home}
	if err := s.launchWith(m.sup, func(child []string) []string { return memberArgs(m, child) }); err != nil {
		return err
	}
	m.mu.Lock()
	m.srv, m.jvms = s, append(m.jvms, s)
	m.mu.Unlock()
	if err := s.awaitReady(ctx, m.spec.Member.ReadyTimeout); err != nil {
		s.Kill()
		return fmt.Errorf("starting %s: %w", m.name, err)
	}
	return nil
}

// Kill sends SIGKILL to the member's JVM and waits until it is reaped (no-op when it is not
// running). Its home, with its data, stays for Restart.
func (m *Member) Kill() {
	if s := m.Server(); s != nil {
		s.Kill()
	}
}

// Stop freezes the member's JVM (SIGSTOP to the JVM process; every thread stops) and returns
// once the kernel reports it stopped. Its sockets stay open: peers and clients see silence,
// not a refusal.
func (m *Member) Stop() error {
	s := m.Server()
	if s == nil {
		return fmt.Errorf("stopping %s: not started", m.name)
	}
	if err := s.child.Stop(); err != nil {
		return fmt.Errorf("stopping %s: %w", m.name, err)
	}
	return nil
}

// Cont resumes a member frozen by Stop (SIGCONT).
func (m *Member) Cont() error {
	s := m.Server()
	if s == nil {
		return fmt.Errorf("resuming %s: not started", m.name)
	}
	if err := s.child.Cont(); err != nil {
		return fmt.Errorf("resuming %s: %w", m.name, err)
	}
	return nil
}

// Restart SIGKILLs the member's JVM if it still runs, then starts a new one on the same home
// (its JRaft data, its embedded store, its cluster.conf) and ports, and waits for its readiness
// endpoint; it returns the new JVM's time from launch to ready. Whether the cluster took it
// back is the cluster's readiness (Cluster.AwaitReady, ClusterState).
func (m *Member) Restart(ctx context.Context) (time.Duration, error) {
	m.life.Lock()
	defer m.life.Unlock()
	m.Kill()
	if err := m.waitPortsFree(ctx); err != nil {
		return 0, fmt.Errorf("restarting %s: %w", m.name, err)
	}
	if err := m.launchLocked(ctx); err != nil {
		return 0, fmt.Errorf("restarting %s: %w", m.name, err)
	}
	return m.Server().StartupTime(), nil
}

// waitPortsFree waits up to 5 s for the kernel to release the member's listening ports after
// its JVM was killed (a listener closes with its process; this only guards the moment between).
func (m *Member) waitPortsFree(ctx context.Context) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var busy error
		for _, p := range m.ports.All() {
			if err := checkFreeOn(m.host, p); err != nil {
				busy = err
				break
			}
		}
		if busy == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return busy
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// RSS returns the current JVM's resident set size in bytes.
func (m *Member) RSS() (int64, error) {
	s := m.Server()
	if s == nil {
		return 0, fmt.Errorf("%s: not started", m.name)
	}
	return s.RSS()
}

// memberStart is one launch of a member's JVM: when, and how long it took to be ready (0 when
// it never was).
type memberStart struct {
	launched time.Time
	took     time.Duration
}

// starts returns every launch after the member's first, in order.
func (m *Member) starts() []memberStart {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []memberStart
	for i, s := range m.jvms {
		if i > 0 {
			out = append(out, memberStart{launched: s.launched, took: s.StartupTime()})
		}
	}
	return out
}
