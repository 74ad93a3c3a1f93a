package nacos

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// Port offsets from the main port, as Nacos derives them (Constants.SDK_GRPC_PORT_DEFAULT_OFFSET,
// CLUSTER_GRPC_PORT_DEFAULT_OFFSET, and JRaft's main − 1000).
const (
	GRPCOffset        = 1000
	ClusterGRPCOffset = 1001
	RaftOffset        = -1000
)

// MinMainPort is the lowest main port: JRaft's port (main − 1000) must stay at or above 9150.
const MinMainPort = 9150 - RaftOffset

// ServerSpec describes one Nacos server.
type ServerSpec struct {
	// Name labels the server in logs and errors ("nacos").
	Name string
	// HeapMB is the JVM's -Xmx in MiB.
	HeapMB int
	// QuickJIT stops the JIT at C1 (-XX:TieredStopAtLevel=1): faster start, slower steady state.
	QuickJIT bool
	// ReadyTimeout bounds the wait for the server's readiness endpoint after the JVM starts.
	ReadyTimeout time.Duration
	// Props are extra Spring/Nacos properties, "key=value", passed as --key=value.
	Props []string
	// KeepHome keeps nacos.home (with the server's logs) after the supervisor closes.
	KeepHome bool
	// NoCDS runs the built jar without class-data sharing: by default the server maps the
	// cluster's AppCDS archive of the server's classes (cluster_cds.go, standaloneClassData).
	NoCDS bool
	// Logf receives progress (the first build takes minutes); nil discards it.
	Logf jvm.Logf
}

// DefaultServerSpec returns the settings the tests use: a 256 MiB heap, full JIT, 3 minutes to
// become ready (two cores shared with other JVMs).
func DefaultServerSpec() ServerSpec {
	return ServerSpec{Name: "nacos", HeapMB: 256, ReadyTimeout: 3 * time.Minute}
}

// Validate reports the first setting out of range, quoting it.
func (s ServerSpec) Validate() error {
	switch {
	case s.Name == "":
		return errors.New("ServerSpec.Name is empty")
	case s.HeapMB < 128 || s.HeapMB > 4096:
		return fmt.Errorf("ServerSpec.HeapMB (%d) must be within [128, 4096]", s.HeapMB)
	case s.ReadyTimeout <= 0:
		return fmt.Errorf("ServerSpec.ReadyTimeout (%s) must be positive", s.ReadyTimeout)
	}
	return nil
}

// Server is a running Nacos server process.
type Server struct {
	// Args is the JVM's command line after the java executable.
	Args    []string
	name    string
	child   *childproc.Child
	port    int
	host    string // the address its listeners bind; "" is 127.0.0.1
	home    string
	logPath string
	started time.Duration
	built   time.Duration
	// launched is when the JVM was started.
	launched time.Time
}

// StartServer builds the server's jar if needed (jvm.Build), starts the JVM under sup, and
// returns once the server reports ready. The main port comes from alloc (it must give ports at
// or above MinMainPort); the derived ports are checked free. nacos.home is a temp dir of sup.
func StartServer(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ServerSpec) (*Server, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	t0 := time.Now()
	jar, err := jvm.Build(ctx, jvm.NacosServer, spec.Logf)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	s := &Server{name: spec.Name, built: time.Since(t0)}
	if s.port, err = takeMainPort(alloc, spec.Name); err != nil {
		return nil, err
	}
	if s.home, err = sup.TempDir("sdchaos-nacos-*", spec.KeepHome); err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	jar, cds, err := standaloneClassData(ctx, sup, alloc, spec, jar)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	if err := s.launch(sup, jar, cds, spec); err != nil {
		return nil, err
	}
	if err := s.awaitReady(ctx, spec.ReadyTimeout); err != nil {
		s.Kill()
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	return s, nil
}

// takeMainPort takes the main port and checks the ports Nacos derives from it.
func takeMainPort(alloc *ports.Allocator, name string) (int, error) {
	p, err := alloc.Take(name + " http")
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", name, err)
	}
	if p < MinMainPort {
		return 0, fmt.Errorf("starting %s: main port %d is below %d (JRaft listens on main − 1000, which must be ≥ 9150): start the port range at %d or above",
			name, p, MinMainPort, MinMainPort)
	}
	for _, off := range []int{GRPCOffset, ClusterGRPCOffset, RaftOffset} {
		if err := ports.CheckFree(p + off); err != nil {
			return 0, fmt.Errorf("starting %s: port %d (main %d %+d) on %s: %w", name, p+off, p, off, ports.Host, ports.ErrInUse)
		}
	}
	return p, nil
}

// launch starts the standalone JVM with the class-data-sharing options cds; its stdout (Spring's console log) and stderr go to the log file.
func (s *Server) launch(sup *childproc.Supervisor, jar string, cds []string, spec ServerSpec) error {
	return s.launchWith(sup, func(child []string) []string { return serverArgs(jar, s.home, s.port, spec, append(child, cds...)) })
}

// launchWith starts the JVM with the arguments args returns for the options every JVM child
// gets (child; jvm.ChildOptions), its output to home/server.log.
func (s *Server) launchWith(sup *childproc.Supervisor, args func(child []string) []string) error {
	java, err := jvm.Java()
	if err != nil {
		return fmt.Errorf("starting %s: %w", s.name, err)
	}
	s.logPath = filepath.Join(s.home, "server.log")
	opts, err := jvm.ChildOptions(filepath.Join(s.home, "tmp"))
	if err != nil {
		return fmt.Errorf("starting %s: %w", s.name, err)
	}
	s.Args = args(opts)
	child, _, err := sup.StartExternal(childproc.ExternalSpec{
		Name: s.name, Path: java, Args: s.Args,
		Env: []string{"MALLOC_ARENA_MAX=2"}, LogPath: s.logPath, StdoutToLog: true,
	})
	if err != nil {
		return fmt.Errorf("starting %s: %w", s.name, err)
	}
	s.child, s.launched = child, time.Now()
	return nil
}
