package eurekareal

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/procstat"
)

// ClientJVMOptions keep the Java scheduler small.
var ClientJVMOptions = []string{"-Xms16m", "-Xmx64m", "-Xss256k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-XX:MaxMetaspaceSize=96m", "-XX:ReservedCodeCacheSize=32m"}

// ClientSpec describes one run of the Java scheduler (Netflix's plain
// DiscoveryClient; see jvm/projects/eureka-client, class ClientMain).
type ClientSpec struct {
	// Name labels the child ("scheduler").
	Name string
	// Servers are the service URLs in the order the client uses them.
	Servers []string
	// FetchInterval is the registry fetch period (whole seconds).
	FetchInterval time.Duration
	// App is the app whose instances it lists and calls ("WORKER" when empty).
	App string
	// Rate is tasks per second (0: fetch only); Retries the other instances
	// a failed task is retried on; CallTimeout bounds one try (1 s when 0).
	Rate        float64
	Retries     int
	CallTimeout time.Duration
	// Start is when task 0 is due (now when zero); End stops the tasks (none when zero).
	Start, End time.Time
	// Seed fixes the tasks' random orders.
	Seed int64
	// Props gives the client's timeouts and quarantine refresh.
	Props Props
	// SystemProps are extra client properties ("-Deureka.disableDelta=true").
	SystemProps []string
	// JVMOptions replace ClientJVMOptions when set.
	JVMOptions []string
	// LogDir receives <name>.log (the client's stderr); a temp dir when empty.
	LogDir string
	// Logf receives build progress; may be nil.
	Logf jvm.Logf
}

// Attempt is one HTTP request of a fetch on one server (Status 0 with Err
// when it threw: refused, timed out).
type Attempt struct {
	Server string `json:"server"`
	Kind   string `json:"kind"` // "full" or "delta"
	Status int    `json:"status"`
	Err    string `json:"err,omitempty"`
}

// FetchLine is one registry fetch of the real client. OK means the client
// stored the answer (Netflix's CacheRefreshedEvent); Server is the server
// that gave it; IDs the instance ids of the app the client now holds.
type FetchLine struct {
	At       time.Time `json:"at"`
	AtMS     int64     `json:"at_ms"`
	MonoMS   int64     `json:"mono_ms"`
	StartMS  int64     `json:"start_ms"`
	Initial  bool      `json:"initial"`
	OK       bool      `json:"ok"`
	Server   string    `json:"server"`
	IDs      []string  `json:"ids"`
	Attempts []Attempt `json:"attempts"`
}

// TaskLine is one task, in the exec-client protocol (docs/real-clients.md)
// plus the tries: Target is the tried ids joined by ">", Attempts their count.
type TaskLine struct {
	Seq       int64     `json:"seq"`
	Scheduled time.Time `json:"scheduled"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Target    string    `json:"target"`
	Addr      string    `json:"addr"`
	Outcome   string    `json:"outcome"` // ok, fail, unknown
	Err       string    `json:"err,omitempty"`
	Attempts  int       `json:"attempts"`
}

// Line is one decoded output line: exactly one of Fetch and Task is set, or
// Err for a line that is not one of them.
type Line struct {
	Fetch *FetchLine
	Task  *TaskLine
	Raw   string
	Err   error
}

// Client is a running Java scheduler.
type Client struct {
	Name, LogPath string
	// Args is the JVM's command line after the java executable; Env the
	// environment the harness gave the program (see ClientMain).
	Args, Env []string
	child     *childproc.Child
	lines     chan Line
	mu        sync.Mutex
	queue     []Line
	wake      chan struct{}
}

// StartClient builds the client jar (on first use) and starts the program.
// Its lines arrive on Lines in order, none dropped, until it exits.
func StartClient(ctx context.Context, sup *childproc.Supervisor, spec ClientSpec) (*Client, error) {
	env, err := spec.environ()
	if err != nil {
		return nil, err
	}
	props, err := spec.Props.ClientProps()
	if err != nil {
		return nil, fmt.Errorf("eureka client properties: %w", err)
	}
	jar, err := jvm.Build(ctx, jvm.EurekaClient, spec.Logf)
	if err != nil {
		return nil, err
	}
	java, err := jvm.Java()
	if err != nil {
		return nil, err
	}
	if spec.LogDir == "" {
		if spec.LogDir, err = sup.TempDir("sdchaos-eureka-client-*", false); err != nil {
			return nil, fmt.Errorf("creating the eureka client log dir: %w", err)
		}
	}
	opts := spec.JVMOptions
	if opts == nil {
		opts = ClientJVMOptions
	}
	tmp, err := jvm.ChildOptions(filepath.Join(spec.LogDir, spec.Name+".tmp"))
	if err != nil {
		return nil, err
	}
	args := append(append(append(append(tmp, opts...), props...), spec.SystemProps...), "-jar", jar)
	c := &Client{Name: spec.Name, LogPath: filepath.Join(spec.LogDir, spec.Name+".log"), Args: args, Env: env,
		lines: make(chan Line), wake: make(chan struct{}, 1)}
	child, out, err := sup.StartExternal(childproc.ExternalSpec{Name: "eureka client " + spec.Name, Path: java,
		Args: args, Env: env, LogPath: c.LogPath})
	if err != nil {
		return nil, fmt.Errorf("starting the eureka client %s: %w", spec.Name, err)
	}
	c.child = child
	go c.read(out)
	go c.pump()
	return c, nil
}

// environ returns the program's environment (see ClientMain).
func (spec *ClientSpec) environ() ([]string, error) {
	if spec.Name == "" {
		spec.Name = "scheduler"
	}
	if spec.App == "" {
		spec.App = "WORKER"
	}
	if spec.CallTimeout == 0 {
		spec.CallTimeout = time.Second
	}
	var c conv
	fetch := c.wholeSecs("the client's eureka.client.refresh.interval (FetchInterval)", spec.FetchInterval)
	if c.err != nil || len(spec.Servers) == 0 {
		return nil, fmt.Errorf("eureka client %s: %v (servers: %v)", spec.Name, c.err, spec.Servers)
	}
	env := []string{"SDCHAOS_EUREKA_URLS=" + strings.Join(spec.Servers, ","), "SDCHAOS_FETCH_INTERVAL=" + strconv.Itoa(fetch),
		"SDCHAOS_APP=" + spec.App, "SDCHAOS_RATE=" + strconv.FormatFloat(spec.Rate, 'g', -1, 64),
		"SDCHAOS_RETRIES=" + strconv.Itoa(spec.Retries), "SDCHAOS_CALL_TIMEOUT=" + spec.CallTimeout.String(),
		"SDCHAOS_SEED=" + strconv.FormatInt(spec.Seed, 10)}
	if !spec.Start.IsZero() {
		env = append(env, "SDCHAOS_START="+spec.Start.UTC().Format(time.RFC3339Nano))
	}
	if !spec.End.IsZero() {
		env = append(env, "SDCHAOS_END="+spec.End.UTC().Format(time.RFC3339Nano))
	}
	return env, nil
}

// Lines returns the client's decoded lines; the channel closes after the
// program's stdout does.
func (c *Client) Lines() <-chan Line { return c.lines }

// Kill SIGKILLs the program and waits until it is gone.
func (c *Client) Kill() { c.child.Kill() }

// Alive reports whether the program still runs.
func (c *Client) Alive() bool { return !c.child.Exited() }

// RSS returns the program's resident set size in bytes.
func (c *Client) RSS() (int64, error) { return procstat.RSS(c.child.Pid()) }

// read decodes stdout into the queue; a nil-Line marks the end.
func (c *Client) read(out io.ReadCloser) {
	defer out.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		c.push(decodeLine(sc.Text()), false)
	}
	c.push(Line{}, true)
}

func (c *Client) push(l Line, end bool) {
	c.mu.Lock()
	if end {
		l.Raw = "\x00end"
	}
	c.queue = append(c.queue, l)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// pump hands queued lines to Lines without ever blocking the reader (an
// unread stream must not stall the JVM's stdout).
func (c *Client) pump() {
	defer close(c.lines)
	for range c.wake {
		c.mu.Lock()
		batch := c.queue
		c.queue = nil
		c.mu.Unlock()
		for _, l := range batch {
			if l.Raw == "\x00end" {
				return
			}
			c.lines <- l
		}
	}
}

// decodeLine decodes one output line by its "type".
func decodeLine(raw string) Line {
	var head struct {
		Type string `json:"type"`
	}
	l := Line{Raw: raw}
	if err := json.Unmarshal([]byte(raw), &head); err != nil {
		l.Err = fmt.Errorf("not JSON: %w", err)
		return l
	}
	switch head.Type {
	case "fetch":
		l.Fetch = &FetchLine{}
		l.Err = json.Unmarshal([]byte(raw), l.Fetch)
	case "task":
		l.Task = &TaskLine{}
		l.Err = json.Unmarshal([]byte(raw), l.Task)
	default:
		l.Err = fmt.Errorf("unknown line type %q", head.Type)
	}
	return l
}
