package xds

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sdchaos/childproc"
)

// ClientSpec describes one xDS client process.
type ClientSpec struct {
	// Name labels it and is its xDS node id ("xds-client-1").
	Name string
	// Service is what it resolves (xds:///<Service>).
	Service string
	// Bootstrap is its bootstrap (the control plane, the server features).
	Bootstrap Bootstrap
	// Rate is its calls per second; CallTimeout the deadline of one call.
	Rate        float64
	CallTimeout time.Duration
}

// Client is a running xDS client and the calls it has reported.
type Client struct {
	Spec    ClientSpec
	LogPath string
	child   *childproc.Child
	mu      sync.Mutex
	calls   []CallLine
	bad     int
	read    chan struct{}
}

// StartClient starts the client as a child of sup (stderr into dir). It is
// this binary run with the hidden client command through StartExternal,
// the supervisor's way to give one child its own environment: gRPC-Go reads
// the bootstrap from GRPC_XDS_BOOTSTRAP_CONFIG once per process.
func StartClient(sup *childproc.Supervisor, dir string, spec ClientSpec) (*Client, error) {
	boot, err := spec.Bootstrap.JSON()
	if err != nil {
		return nil, fmt.Errorf("client %s: %w", spec.Name, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("client %s: finding own executable: %w", spec.Name, err)
	}
	args := clientArgs{Service: spec.Service, Rate: spec.Rate, CallTimeout: spec.CallTimeout}
	c := &Client{Spec: spec, LogPath: filepath.Join(dir, spec.Name+".log"), read: make(chan struct{})}
	child, out, err := sup.StartExternal(childproc.ExternalSpec{Name: spec.Name, Path: exe,
		Args: append([]string{clientCommand}, args.argv()...),
		Env:  []string{"GRPC_XDS_BOOTSTRAP_CONFIG=" + string(boot)}, LogPath: c.LogPath})
	if err != nil {
		return nil, fmt.Errorf("starting client %s: %w", spec.Name, err)
	}
	c.child = child
	go c.readLines(out)
	return c, nil
}

func (c *Client) readLines(out io.ReadCloser) {
	defer close(c.read)
	defer out.Close()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var l CallLine
		err := json.Unmarshal(sc.Bytes(), &l)
		c.mu.Lock()
		if err != nil || l.Outcome == "" {
			c.bad++
		} else {
			c.calls = append(c.calls, l)
		}
		c.mu.Unlock()
	}
}

// Calls returns the calls that started within [from, to).
func (c *Client) Calls(from, to time.Time) []CallLine {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []CallLine
	for _, l := range c.calls {
		if !l.Start.Before(from) && l.Start.Before(to) {
			out = append(out, l)
		}
	}
	return out
}

// Malformed returns how many lines were not calls.
func (c *Client) Malformed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bad
}

// Child returns its process.
func (c *Client) Child() *childproc.Child { return c.child }

// Close kills the client and waits until its output is read.
func (c *Client) Close() {
	c.child.Kill()
	<-c.read
}
