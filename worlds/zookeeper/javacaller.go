package zookeeper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/procstat"
)

// JavaMode picks the Java client of the zookeeper-callers piece.
type JavaMode string

const (
	// Curator is Apache Curator's ServiceDiscovery + ServiceCache, an instance
	// picked by RoundRobinStrategy for each call.
	Curator JavaMode = "curator"
	// Spring is Spring Cloud Zookeeper discovery + Spring Cloud LoadBalancer:
	// each call is LoadBalancerClient.execute.
	Spring JavaMode = "spring"
)

// JavaCallerSpec describes one Java caller process.
type JavaCallerSpec struct {
	// Name labels the process ("curator-1").
	Name string
	// Mode picks the client.
	Mode JavaMode
	// Connect is the ZooKeeper connect string (Ensemble.ConnectString); BasePath
	// Curator's base path (DefaultBasePath when empty); Service the service
	// called.
	Connect, BasePath, Service string
	// Rate is calls per second, open loop from Start until End; a zero Start
	// means the moment the client is ready (the started event's time).
	Rate       float64
	Start, End time.Time
	// Gated, instead of Start and End, makes the caller wait once it is
	// ready (Ready is closed) until the harness opens its gate (Open) with
	// the start and end of its calls.
	Gated bool
	// CallTimeout bounds one call to an instance.
	CallTimeout time.Duration
	// SessionTimeout and ConnectionTimeout are the client's; zero leaves the
	// client's default (rules.go: Curator 60 s / 15 s, Spring Cloud Zookeeper
	// 60 s / 15 s).
	SessionTimeout, ConnectionTimeout time.Duration
	// Dir receives the caller's log and the JVM's temp files.
	Dir string
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
	case s.Mode != Curator && s.Mode != Spring:
		return fmt.Errorf("JavaCallerSpec.Mode (%q) must be %q or %q", s.Mode, Curator, Spring)
	case s.Connect == "" || s.Service == "":
		return fmt.Errorf("JavaCallerSpec.Connect (%q) and Service (%q) must be set", s.Connect, s.Service)
	case s.Rate <= 0 || s.Rate > 1000:
		return fmt.Errorf("JavaCallerSpec.Rate (%g) must be within (0, 1000]", s.Rate)
	case !s.Start.IsZero() && !s.End.After(s.Start):
		return fmt.Errorf("JavaCallerSpec.End (%s) must be after Start (%s)", s.End, s.Start)
	case s.End.IsZero() && !s.Gated:
		return errors.New("JavaCallerSpec.End is not set")
	case s.Gated && !(s.Start.IsZero() && s.End.IsZero()):
		return errors.New("JavaCallerSpec.Gated: the gate gives the start and the end (leave Start and End zero)")
	case s.CallTimeout <= 0:
		return fmt.Errorf("JavaCallerSpec.CallTimeout (%s) must be positive", s.CallTimeout)
	case s.SessionTimeout < 0 || s.ConnectionTimeout < 0:
		return fmt.Errorf("JavaCallerSpec.SessionTimeout (%s) and ConnectionTimeout (%s) must not be negative", s.SessionTimeout, s.ConnectionTimeout)
	case s.Dir == "":
		return errors.New("JavaCallerSpec.Dir is empty")
	}
	return nil
}

// JavaCaller is a running Java caller; its lines are decoded as they come and
// handed to Lines' subscribers.
type JavaCaller struct {
	name    string
	child   *childproc.Child
	logPath string
	gate    string // the gate file ("" when not gated)
	started chan struct{}
	ready   chan struct{}
	read    chan struct{}

	mu     sync.Mutex
	res    Result
	stream chan Line
}

// Line is one decoded line of a caller: a call or an event.
type Line struct {
	Call  *Call
	Event *Event
}

// StartJavaCaller builds the zookeeper-callers piece if needed and starts the
// caller under sup; it returns at once (Started is closed when the client is
// built and its calls begin).
func StartJavaCaller(ctx context.Context, sup *childproc.Supervisor, spec JavaCallerSpec) (*JavaCaller, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	jar, err := jvm.Build(ctx, jvm.ZooKeeperCallers, spec.Logf)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	java, err := jvm.Java()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	opts, err := jvm.ChildOptions(filepath.Join(spec.Dir, spec.Name+".tmp"))
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	c := &JavaCaller{name: spec.Name, logPath: filepath.Join(spec.Dir, spec.Name+".log"),
		started: make(chan struct{}), ready: make(chan struct{}), read: make(chan struct{}), stream: make(chan Line, 4096)}
	env := callerEnv(spec)
	if spec.Gated {
		c.gate = filepath.Join(spec.Dir, spec.Name+".gate")
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

func callerArgs(jar string, s JavaCallerSpec, child []string) []string {
	heap := s.HeapMB
	if heap == 0 {
		heap = 128
	}
	args := append([]string{"-Xms16m", "-Xmx" + strconv.Itoa(heap) + "m", "-XX:+UseSerialGC", "-Xss512k",
		"-XX:TieredStopAtLevel=1", "-Duser.home=" + s.Dir}, child...)
	return append(args, "-jar", jar, string(s.Mode))
}

func callerEnv(s JavaCallerSpec) []string {
	base := s.BasePath
	if base == "" {
		base = DefaultBasePath
	}
	env := []string{"MALLOC_ARENA_MAX=2", "SDCHAOS_ZK_CONNECT=" + s.Connect, "SDCHAOS_ZK_BASE_PATH=" + base,
		"SDCHAOS_SERVICE=" + s.Service, "SDCHAOS_RATE=" + strconv.FormatFloat(s.Rate, 'f', -1, 64),
		"SDCHAOS_CALL_TIMEOUT=" + s.CallTimeout.String()}
	if !s.End.IsZero() {
		env = append(env, "SDCHAOS_END="+s.End.UTC().Format(time.RFC3339Nano))
	}
	if !s.Start.IsZero() {
		env = append(env, "SDCHAOS_START="+s.Start.UTC().Format(time.RFC3339Nano))
	}
	if s.SessionTimeout > 0 {
		env = append(env, "SDCHAOS_ZK_SESSION_TIMEOUT="+s.SessionTimeout.String())
	}
	if s.ConnectionTimeout > 0 {
		env = append(env, "SDCHAOS_ZK_CONNECTION_TIMEOUT="+s.ConnectionTimeout.String())
	}
	return env
}

// decode reads the caller's stdout until EOF; lines outside the protocol (the
// clients' console log) are counted and appended to the log file.
func (c *JavaCaller) decode(out io.ReadCloser) {
	defer close(c.read)
	defer close(c.stream)
	defer out.Close()
	logf, _ := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if logf != nil {
		defer logf.Close()
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		call, ev, err := DecodeLine(sc.Bytes())
		if err != nil {
			c.mu.Lock()
			c.res.Other++
			c.mu.Unlock()
			if logf != nil {
				_, _ = logf.Write(append(sc.Bytes(), '\n'))
			}
			continue
		}
		c.record(call, ev)
	}
}

func (c *JavaCaller) record(call *Call, ev *Event) {
	c.mu.Lock()
	if call != nil {
		c.res.Calls = append(c.res.Calls, *call)
	} else {
		c.res.Events = append(c.res.Events, *ev)
		switch ev.Kind {
		case EventStarted:
			close(c.started)
		case EventReady:
			close(c.ready)
		}
	}
	c.mu.Unlock()
	select {
	case c.stream <- Line{Call: call, Event: ev}:
	default: // nobody reads the stream fast enough: the Result keeps every line anyway
	}
}

// Lines returns the caller's decoded lines as they come (closed at EOF). The
// channel holds 4096 lines; when nobody reads it, newer lines are dropped from
// the stream (never from Snapshot or Wait).
func (c *JavaCaller) Lines() <-chan Line { return c.stream }

// Started is closed once the client is built and its calls begin.
func (c *JavaCaller) Started() <-chan struct{} { return c.started }

// Ready is closed once a gated caller's client is built and waits for its
// gate.
func (c *JavaCaller) Ready() <-chan struct{} { return c.ready }

// Open opens a gated caller's gate: its calls run from start until end
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

// Done is closed when the JVM has exited.
func (c *JavaCaller) Done() <-chan struct{} { return c.child.Done() }

// Pid returns the JVM's process id.
func (c *JavaCaller) Pid() int { return c.child.Pid() }

// LogPath returns the file holding the caller's stderr and console log.
func (c *JavaCaller) LogPath() string { return c.logPath }

// Kill ends the caller (SIGKILL) and waits until it is reaped.
func (c *JavaCaller) Kill() { c.child.Kill() }

// RSS returns the JVM's resident set size in bytes.
func (c *JavaCaller) RSS() (int64, error) { return procstat.RSS(c.child.Pid()) }

// Snapshot returns what the caller printed so far.
func (c *JavaCaller) Snapshot() Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Result{Calls: append([]Call(nil), c.res.Calls...), Events: append([]Event(nil), c.res.Events...), Other: c.res.Other}
}

// Wait blocks until the caller exits and its output is read, and returns its
// record; the error is the exit status when it was not 0, with the log's tail.
func (c *JavaCaller) Wait() (Result, error) {
	<-c.child.Done()
	<-c.read
	if err := c.child.Err(); err != nil {
		return c.Snapshot(), fmt.Errorf("%s: %w; its log ends:%s", c.name, err, logTail(c.logPath))
	}
	return c.Snapshot(), nil
}
