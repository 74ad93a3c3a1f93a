package nacos

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// Name returns the server's label.
func (s *Server) Name() string { return s.name }

// Port returns the main (HTTP) port.
func (s *Server) Port() int { return s.port }

// Addr returns the HTTP address, <host>:<main port> (host 127.0.0.1 but for a cluster member
// given another).
func (s *Server) Addr() string { return net.JoinHostPort(s.hostname(), strconv.Itoa(s.port)) }

// GRPCAddr returns the SDK gRPC address, <host>:<main port + 1000>.
func (s *Server) GRPCAddr() string {
	return net.JoinHostPort(s.hostname(), strconv.Itoa(s.port+GRPCOffset))
}

// hostname returns the address the server's listeners bind.
func (s *Server) hostname() string {
	if s.host == "" {
		return ports.Host
	}
	return s.host
}

// Pid returns the JVM's process id.
func (s *Server) Pid() int { return s.child.Pid() }

// Home returns nacos.home (a temp dir removed when the supervisor closes).
func (s *Server) Home() string { return s.home }

// LogPath returns the file holding the server's console output.
func (s *Server) LogPath() string { return s.logPath }

// StartupTime returns how long the JVM took from its start to the first ready answer.
func (s *Server) StartupTime() time.Duration { return s.started }

// BuildTime returns how long jvm.Build took (near zero once the jar is cached).
func (s *Server) BuildTime() time.Duration { return s.built }

// Alive reports whether the JVM still runs.
func (s *Server) Alive() bool { return !s.child.Exited() && childproc.Alive(s.child.Pid()) }

// Kill sends SIGKILL to the JVM's process group and waits until it is reaped.
func (s *Server) Kill() { s.child.Kill() }

// Done is closed when the JVM has exited.
func (s *Server) Done() <-chan struct{} { return s.child.Done() }

// RSS returns the JVM's resident set size in bytes.
func (s *Server) RSS() (int64, error) {
	n, err := RSS(s.child.Pid())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	return n, nil
}
