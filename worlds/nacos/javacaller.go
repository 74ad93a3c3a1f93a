package nacos

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
)

// JavaMode picks the Java client of the nacos-callers piece.
type JavaMode string

const (
	// Spring is Spring Cloud Alibaba Nacos discovery + Spring Cloud LoadBalancer: each call is
	// LoadBalancerClient.execute, which fails "No instances available for <service>" when the
	// balancer's list is empty.
	Spring JavaMode = "spring"
	// Plain is the official nacos-client alone: NamingService.selectOneHealthyInstance.
	Plain JavaMode = "plain"
)

// JavaCallerSpec describes one Java caller process.
type JavaCallerSpec struct {
	// Name labels the process ("spring-incident").
	Name string
	// Mode picks the client: Spring or Plain.
	Mode JavaMode
	// Server is the HTTP address the client is given (the server's or a Link's; a cluster's
	// members comma-separated); each gRPC port is its port + GRPCOffset (0 means 1000).
	Server     string
	GRPCOffset int
	CallerSpec
	// LoadCacheAtStart and PushEmptyProtection are nacos-client's namingLoadCacheAtStart and
	// namingPushEmptyProtection (both false by default); StaleFallback (Spring only) wraps
	// LoadBalancer's list supplier in the fallback to the last non-empty list.
	LoadCacheAtStart, PushEmptyProtection, StaleFallback bool
	// Home is the JVM's user.home: the client's logs, and its temp files (Home/tmp).
	Home string
	// SnapshotPath is nacos-client's JM.SNAPSHOT.PATH (a system property): the client's disk
	// cache is SnapshotPath/nacos/naming/public (CacheDirUtil.initCacheDir). Empty means Home,
	// where the client's default (user.home) puts it too. Give two processes the same path for
	// one to start from the other's cache.
	SnapshotPath string
	// Gated makes the caller wait, once its client is built and warmed up (Ready is closed),
	// until the harness opens its gate (Open) with the start and end of its calls; CallerSpec's
	// Start and End are then left zero.
	Gated bool
	// HeapMB is -Xmx in MiB (0: 128).
	HeapMB int
	// Logf receives build progress; nil discards it.
	Logf jvm.Logf
}

// Validate reports the first setting out of range, quoting it.
func (s JavaCallerSpec) Validate() error {
	switch {
	case s.Name == "":
		return errors.New("JavaCallerSpec.Name is empty")
	case s.Mode != Spring && s.Mode != Plain:
		return fmt.Errorf("JavaCallerSpec.Mode (%q) must be %q or %q", s.Mode, Spring, Plain)
	case s.StaleFallback && s.Mode != Spring:
		return fmt.Errorf("JavaCallerSpec.StaleFallback is a LoadBalancer supplier: Mode %q has none", s.Mode)
	case s.Home == "":
		return errors.New("JavaCallerSpec.Home is empty (the client's cache would go to the real home)")
	}
	if _, err := splitAddrs(s.Server); err != nil {
		return fmt.Errorf("JavaCallerSpec.Server (%q): %w", s.Server, err)
	}
	if s.Gated {
		if !s.Start.IsZero() || !s.End.IsZero() {
			return errors.New("JavaCallerSpec.Gated: the gate gives the start and the end (leave Start and End zero)")
		}
		return s.CallerSpec.validateGated()
	}
	return s.CallerSpec.Validate()
}

// JavaCaller is a running Java caller; its lines are decoded and recorded into its spec's Log
// as they come.
type JavaCaller struct {
	name    string
	child   *childproc.Child
	log     *CallLog
	other   atomic.Int64
	started chan struct{}
	ready   chan struct{}
	read    chan struct{}
	logPath string
	gate    string // the gate file ("" when not gated)
}

// StartJavaCaller builds the nacos-callers piece if needed and starts the caller under sup; it
// returns at once (Started is closed when the client is built and calls begin).
func StartJavaCaller(ctx context.Context, sup *childproc.Supervisor, spec JavaCallerSpec) (*JavaCaller, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	jar, err := jvm.Build(ctx, jvm.NacosCallers, spec.Logf)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	java, err := jvm.Java()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	opts, err := jvm.ChildOptions(filepath.Join(spec.Home, "tmp"))
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	c := &JavaCaller{name: spec.Name, log: spec.Log, started: make(chan struct{}), ready: make(chan struct{}), read: make(chan struct{}),
		logPath: filepath.Join(spec.Home, spec.Name+".log")}
	env := callerEnv(spec)
	if spec.Gated {
		c.gate = filepath.Join(spec.Home, spec.Name+".gate")
		env = append(env, "SDCHAOS_GATE="+c.gate)
	}
	child, out, err := sup.StartExternal(childproc.ExternalSpec{Name: spec.Name, Path: java,
		Args: callerArgs(jar, spec, opts), Env: env, LogPath: c.logPath})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	c.child = child
	go c.decode(out)
	return c, nil
}

// callerArgs is a Java caller's JVM command line; child are the options every JVM child gets
// (jvm.ChildOptions: temp files in Home/tmp, no hsperfdata).
func callerArgs(jar string, s JavaCallerSpec, child []string) []string {
	heap := s.HeapMB
	if heap == 0 {
		heap = 128
	}
	args := append([]string{"-Xms16m", "-Xmx" + strconv.Itoa(heap) + "m", "-XX:+UseSerialGC", "-Xss512k",
		"-XX:TieredStopAtLevel=1"}, child...)
	return append(args, "-Duser.home="+s.Home, "-DJM.SNAPSHOT.PATH="+s.snapshotPath(), "-jar", jar, string(s.Mode))
}

// snapshotPath is SnapshotPath, or Home when it is empty.
func (s JavaCallerSpec) snapshotPath() string {
	if s.SnapshotPath != "" {
		return s.SnapshotPath
	}
	return s.Home
}

func callerEnv(s JavaCallerSpec) []string {
	off := s.GRPCOffset
	if off == 0 {
		off = GRPCOffset
	}
	b := strconv.FormatBool
	return []string{"MALLOC_ARENA_MAX=2", "SDCHAOS_NACOS_SERVER=" + s.Server, "SDCHAOS_NACOS_GRPC_OFFSET=" + strconv.Itoa(off),
		"SDCHAOS_SERVICE=" + s.Service, "SDCHAOS_RATE=" + strconv.FormatFloat(s.Rate, 'f', -1, 64),
		"SDCHAOS_START=" + rfc3339(s.Start), "SDCHAOS_END=" + rfc3339(s.End), "SDCHAOS_CALL_TIMEOUT=" + s.CallTimeout.String(), "SDCHAOS_LOAD_CACHE_AT_START=" + b(s.LoadCacheAtStart),
		"SDCHAOS_PUSH_EMPTY_PROTECTION=" + b(s.PushEmptyProtection), "SDCHAOS_STALE_FALLBACK=" + b(s.StaleFallback),
		"SDCHAOS_RESTARTED=" + b(s.Restarted)}
}

// rfc3339 formats t for the protocol ("" for a zero time: a gated caller's start and end).
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// decode reads the caller's stdout line by line until EOF, recording each call and report into
// the log as it comes. Lines that are not the protocol's (Spring's and the Nacos client's console
// log) are counted (Other) and appended to the log file.
func (c *JavaCaller) decode(out io.ReadCloser) {
	defer close(c.read)
	defer out.Close()
	logf, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		logf = nil
	} else {
		defer logf.Close()
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		call, ev, err := decodeLine(sc.Bytes())
		switch {
		case err != nil:
			c.other.Add(1)
			if logf != nil {
				_, _ = logf.Write(append(sc.Bytes(), '\n'))
			}
		case call != nil:
			c.log.call(*call)
		default:
			c.log.event(*ev)
			switch ev.Kind {
			case EventStarted:
				close(c.started)
			case EventReady:
				close(c.ready)
			}
		}
	}
}

// Ready is closed once a gated caller's client is built and warmed up and waits for its gate.
func (c *JavaCaller) Ready() <-chan struct{} { return c.ready }

// Done is closed once the JVM has exited.
func (c *JavaCaller) Done() <-chan struct{} { return c.child.Done() }

// Open opens a gated caller's gate: its calls are due from start, none at or after end
// (jvm.OpenGate).
func (c *JavaCaller) Open(start, end time.Time) error {
	if c.gate == "" {
		return fmt.Errorf("%s: not gated", c.name)
	}
	if err := jvm.OpenGate(c.gate, start, end); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

// Pid returns the JVM's process id.
func (c *JavaCaller) Pid() int { return c.child.Pid() }

// LogPath returns the file holding the caller's stderr.
func (c *JavaCaller) LogPath() string { return c.logPath }

// Kill ends the caller (SIGKILL) and waits until it is reaped.
func (c *JavaCaller) Kill() { c.child.Kill() }

// RSS returns the JVM's resident set size in bytes.
func (c *JavaCaller) RSS() (int64, error) { return RSS(c.child.Pid()) }

// Other returns how many lines the caller printed so far that were neither a call nor a report.
func (c *JavaCaller) Other() int { return int(c.other.Load()) }

// Wait blocks until the caller exits and its output is read; the error is the exit status when
// it was not 0, with the log's tail.
func (c *JavaCaller) Wait() error {
	<-c.child.Done()
	<-c.read
	if err := c.child.Err(); err != nil {
		return fmt.Errorf("%s: %w; its log ends: %s", c.name, err, logTail(c.logPath, 1500))
	}
	return nil
}
