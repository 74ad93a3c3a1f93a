package dns

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// Server is one CoreDNS server process.
type Server struct {
	// Name labels it ("dns1"); Port is its UDP and TCP port on 127.0.0.1.
	Name string
	Port int
	// CorefilePath is its Corefile; LogPath its stdout and stderr.
	CorefilePath, LogPath string
	cfg                   ServerConfig
	sup                   *childproc.Supervisor

	mu      sync.Mutex
	child   *childproc.Child
	readyIn time.Duration
}

// StartTimeout bounds a server's wait to answer its first query.
const StartTimeout = 30 * time.Second

// StartServer writes cfg's Corefile into dir, starts the server under sup
// on a port from alloc and waits until it answers a query.
func StartServer(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, dir, name string, cfg ServerConfig) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring CoreDNS %s: %w", name, err)
	}
	port, err := alloc.Take("CoreDNS " + name)
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, Port: port, cfg: cfg, sup: sup,
		CorefilePath: filepath.Join(dir, name+".Corefile"), LogPath: filepath.Join(dir, name+".log")}
	if err := os.WriteFile(s.CorefilePath, []byte(cfg.Corefile(port)), 0o644); err != nil {
		return nil, fmt.Errorf("writing CoreDNS %s's Corefile: %w", name, err)
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Addr returns "127.0.0.1:<port>".
func (s *Server) Addr() string { return ports.Addr(s.Port) }

// Config returns the server's configuration.
func (s *Server) Config() ServerConfig { return s.cfg }

// ReadyIn returns how long the last start took, from the process's start
// until it answered a query.
func (s *Server) ReadyIn() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readyIn
}

func (s *Server) start(ctx context.Context) error {
	t0 := time.Now()
	ch, err := s.sup.Start(childproc.Spec{Name: "CoreDNS " + s.Name, Command: serverCommand,
		Args: []string{"--corefile", s.CorefilePath}, LogPath: s.LogPath})
	if err != nil {
		return fmt.Errorf("starting CoreDNS %s: %w", s.Name, err)
	}
	s.mu.Lock()
	s.child = ch
	s.mu.Unlock()
	if err := s.waitAnswering(ctx, ch); err != nil {
		ch.Kill()
		return fmt.Errorf("waiting for CoreDNS %s (log %s): %w", s.Name, s.LogPath, err)
	}
	s.mu.Lock()
	s.readyIn = time.Since(t0)
	s.mu.Unlock()
	return nil
}

// waitAnswering polls the zone's SOA until the server answers (any rcode).
func (s *Server) waitAnswering(ctx context.Context, ch *childproc.Child) error {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	for {
		qctx, qcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := Query(qctx, s.Addr(), s.cfg.Zone, TypeSOA)
		qcancel()
		if err == nil {
			return nil
		}
		select {
		case <-ch.Done():
			return fmt.Errorf("the process exited: %v", ch.Err())
		case <-ctx.Done():
			return fmt.Errorf("no answer: %w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Running reports whether the server's process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.child != nil && !s.child.Exited()
}

// Kill SIGKILLs the server and waits until its process is gone; its cache
// goes with it. Killing a dead server is a no-op.
func (s *Server) Kill() {
	s.mu.Lock()
	ch := s.child
	s.mu.Unlock()
	if ch != nil {
		ch.Kill()
	}
}

// Restart starts a killed server again on its port and Corefile and waits
// until it answers.
func (s *Server) Restart(ctx context.Context) error {
	if s.Running() {
		return fmt.Errorf("restarting CoreDNS %s: still running", s.Name)
	}
	return s.start(ctx)
}

// Pid returns the server's current process id (0 before start).
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.child == nil {
		return 0
	}
	return s.child.Pid()
}
