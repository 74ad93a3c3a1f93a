package eurekareal

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// DefaultJVMOptions keep each server small: 3 servers and a client fit on 2
// cores (measured RSS about 215 MB per server after start-up).
var DefaultJVMOptions = []string{"-Xms32m", "-Xmx128m", "-Xss256k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-XX:MaxMetaspaceSize=128m", "-XX:ReservedCodeCacheSize=48m", "-Djava.awt.headless=true"}

// DefaultReadyTimeout bounds a server's start when the spec gives none:
// three JVMs starting together on two cores take about 35 s.
const DefaultReadyTimeout = 3 * time.Minute

// ClusterSpec describes a set of real peer servers.
type ClusterSpec struct {
	// Label prefixes the server names ("on" → "on-s1"); empty gives "s1"….
	Label string
	// Size is the number of servers (3 when 0); each replicates to all others.
	Size  int
	Props Props
	// JVMOptions replace DefaultJVMOptions when set.
	JVMOptions []string
	// NoCDS runs the built jar without class-data sharing (cds.go): by default every server
	// maps an AppCDS archive of the server's classes, written once per built jar.
	NoCDS bool
	// ExtraArgs are appended to every server's Spring arguments ("--a.b=c").
	ExtraArgs []string
	// ClockControl starts every server under libfaketime so Server.StepClock
	// works (ErrNoFaketime if it is not installed).
	ClockControl bool
	// LogDir receives <name>.log per server; a supervisor temp dir when empty.
	LogDir string
	// ReadyTimeout bounds the wait for every node to open and replicate
	// (3 minutes when 0: three JVMs starting together on two cores take ~35 s).
	ReadyTimeout time.Duration
	// Logf receives progress (the first build takes minutes); may be nil.
	Logf jvm.Logf
	// PeerURL, when set, returns the service URL server from is given for
	// its peer to (a proxy on the peer path, so that the path can be cut);
	// when nil, every server is given its peers' own ServiceURLs.
	PeerURL func(from, to *Server) (string, error)
}

// StartCluster builds the server jar (on first use), starts spec.Size
// servers on ports from alloc, waits until each is open and until a probe
// registration on each node has reached every other one, and returns the
// servers. The supervisor owns the JVMs and the temp dir.
func StartCluster(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec) ([]*Server, error) {
	spec = spec.withDefaults()
	props, err := spec.Props.ServerArgs()
	if err == nil {
		err = spec.Props.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("eureka properties: %w", err)
	}
	jar, err := jvm.Build(ctx, jvm.EurekaServer, spec.Logf)
	if err != nil {
		return nil, err
	}
	java, err := jvm.Java()
	if err != nil {
		return nil, err
	}
	if spec.LogDir == "" {
		if spec.LogDir, err = sup.TempDir("sdchaos-eureka-real-*", false); err != nil {
			return nil, fmt.Errorf("creating the eureka log dir: %w", err)
		}
	}
	servers, err := allocate(alloc, spec)
	if err != nil {
		return nil, err
	}
	jar, cds, err := classData(ctx, sup, alloc, spec, java, jar)
	if err != nil {
		return nil, err
	}
	spec.JVMOptions = append(append([]string(nil), spec.JVMOptions...), cds...)
	launched := time.Now()
	for i, s := range servers {
		if err := launch(sup, spec, java, jar, props, servers, i); err != nil {
			return nil, fmt.Errorf("starting eureka %s: %w", s.Name, err)
		}
	}
	deadline := launched.Add(spec.ReadyTimeout)
	for _, s := range servers {
		if err := s.waitOpen(ctx, launched, deadline); err != nil {
			return nil, err
		}
	}
	if err := probeReplication(ctx, servers, deadline); err != nil {
		return nil, err
	}
	spec.Logf("eureka: %d real servers open and replicating %.1f s after launch", len(servers), time.Since(launched).Seconds())
	return servers, nil
}

func (spec ClusterSpec) withDefaults() ClusterSpec {
	if spec.Size == 0 {
		spec.Size = 3
	}
	if spec.JVMOptions == nil {
		spec.JVMOptions = DefaultJVMOptions
	}
	if spec.ReadyTimeout == 0 {
		spec.ReadyTimeout = DefaultReadyTimeout
	}
	if spec.Logf == nil {
		spec.Logf = func(string, ...any) {}
	}
	return spec
}

// allocate names the servers and takes their ports.
func allocate(alloc *ports.Allocator, spec ClusterSpec) ([]*Server, error) {
	out := make([]*Server, spec.Size)
	for i := range out {
		name := fmt.Sprintf("s%d", i+1)
		if spec.Label != "" {
			name = spec.Label + "-" + name
		}
		port, err := alloc.Take("eureka server " + name)
		if err != nil {
			return nil, err
		}
		url := "http://" + ports.Addr(port)
		out[i] = &Server{Name: name, URL: url, ServiceURL: url + "/eureka/", httpc: &http.Client{Timeout: 5 * time.Second}}
	}
	return out, nil
}

// launch starts server i's JVM.
func launch(sup *childproc.Supervisor, spec ClusterSpec, java, jar string, props []string, servers []*Server, i int) error {
	s := servers[i]
	s.LogPath = filepath.Join(spec.LogDir, s.Name+".log")
	child, err := jvm.ChildOptions(filepath.Join(spec.LogDir, s.Name+".tmp"))
	if err != nil {
		return err
	}
	own, err := nodeArgs(servers, i, spec.PeerURL)
	if err != nil {
		return err
	}
	args := append(append(child, spec.JVMOptions...), "-jar", jar)
	args = append(append(args, props...), own...)
	args = append(args, spec.ExtraArgs...)
	s.Args = args
	var env []string
	if spec.ClockControl {
		lib, err := Faketime()
		if err != nil {
			return err
		}
		if s.clock, err = newFakeClock(spec.LogDir, s.Name); err != nil {
			return err
		}
		env = s.clock.env(lib)
	}
	// Spring logs to stdout: into the log file, so no pipe can fill and block the JVM.
	s.launch = &launchSpec{sup: sup, ready: spec.ReadyTimeout, ext: childproc.ExternalSpec{Name: "eureka " + s.Name, Path: java,
		Args: args, Env: env, LogPath: s.LogPath, StdoutToLog: true}}
	return s.start()
}

// nodeArgs are server i's own Spring arguments: its address, its own URL
// (eureka.server.my-url: without it PeerEurekaNodes.isThisMyUrl compares
// host names only and drops every 127.0.0.1 peer as itself) and its peers.
func nodeArgs(servers []*Server, i int, peerURL func(from, to *Server) (string, error)) ([]string, error) {
	s := servers[i]
	var peers []string
	for j, p := range servers {
		if j == i {
			continue
		}
		u := p.ServiceURL
		if peerURL != nil {
			var err error
			if u, err = peerURL(s, p); err != nil {
				return nil, fmt.Errorf("the path from %s to its peer %s: %w", s.Name, p.Name, err)
			}
		}
		peers = append(peers, u)
	}
	if len(peers) == 0 { // a lone server: its embedded client reads itself; my-url drops it as a peer
		peers = []string{s.ServiceURL}
	}
	port := strings.TrimPrefix(s.URL, "http://"+ports.Host+":")
	return []string{"--sdchaos.name=" + s.Name, "--server.port=" + port, "--server.address=" + ports.Host,
		"--eureka.instance.hostname=" + ports.Host, "--eureka.instance.instance-id=" + s.Name,
		"--eureka.server.my-url=" + s.ServiceURL,
		"--eureka.client.service-url.defaultZone=" + strings.Join(peers, ",")}, nil
}

// waitOpen polls /sdchaos/state until the registry has opened for traffic.
func (s *Server) waitOpen(ctx context.Context, launched, deadline time.Time) error {
	for {
		st, err := s.State(ctx)
		if err == nil && st.OpenedMonoMS > 0 {
			s.Startup = time.Since(launched)
			s.MonoOffset = st.WallMS - st.MonoMS
			return nil
		}
		if s.child.Exited() || time.Now().After(deadline) {
			return fmt.Errorf("eureka %s did not open on %s within %s (exited: %v; last error: %v; log %s:%s)",
				s.Name, s.URL, deadline.Sub(launched).Round(time.Second), s.child.Exited(), err, s.LogPath, logTail(s.LogPath))
		}
		if err := clock.SleepFor(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// logTail returns the last lines of a log, for errors.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return " (unreadable)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return "\n  " + strings.Join(lines[max(0, len(lines)-8):], "\n  ")
}
