package eurekamodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/ports"
)

// ClusterSpec describes a set of peer servers to start as child processes.
type ClusterSpec struct {
	// Label prefixes the server names ("on" → "on-s1"); empty gives "s1"….
	Label string
	// Size is the number of servers (each replicates to all the others).
	Size   int
	Config Config
	Scale  Scale
	// Seed seeds server i's eviction choice with Seed + i.
	Seed uint64
	// LogDir receives <name>.log per server.
	LogDir string
}

// ServerProc is a server child process as the harness sees it.
type ServerProc struct {
	name, url string
	child     *childproc.Child
}

// Name returns the server's name ("s1", "on-s1").
func (p *ServerProc) Name() string { return p.name }

// URL returns the server's base URL (http://127.0.0.1:PORT).
func (p *ServerProc) URL() string { return p.url }

// controlTimeout bounds one control command (a frozen server cannot answer).
const controlTimeout = 10 * time.Second

// StartCluster starts spec.Size servers on ports from alloc and waits until
// each answers a fetch. The supervisor owns the processes.
func StartCluster(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec) ([]*ServerProc, error) {
	procs := make([]*ServerProc, spec.Size)
	addrs := make([]string, spec.Size)
	for i := range procs {
		name := fmt.Sprintf("s%d", i+1)
		if spec.Label != "" {
			name = spec.Label + "-" + name
		}
		port, err := alloc.Take("eureka server " + name)
		if err != nil {
			return nil, err
		}
		addrs[i] = ports.Addr(port)
		procs[i] = &ServerProc{name: name, url: "http://" + addrs[i]}
	}
	cfgJSON, err := json.Marshal(spec.Config)
	if err != nil {
		return nil, fmt.Errorf("encoding the model config: %w", err)
	}
	for i, p := range procs {
		a := serverArgs{name: p.Name(), listen: addrs[i], peers: peersOf(procs, i), epochNs: spec.Scale.Epoch.UnixNano(),
			factor: spec.Scale.Factor, seed: spec.Seed + uint64(i), config: string(cfgJSON)}
		p.child, err = sup.Start(childproc.Spec{Name: "eureka " + p.Name(), Command: ServerCommand, Args: a.argv(),
			LogPath: filepath.Join(spec.LogDir, p.Name()+".log"), Control: true})
		if err != nil {
			return nil, fmt.Errorf("starting eureka %s: %w", p.name, err)
		}
	}
	for _, p := range procs {
		if err := p.waitReady(ctx); err != nil {
			return nil, err
		}
	}
	return procs, nil
}

func peersOf(procs []*ServerProc, self int) string {
	var urls []string
	for j, q := range procs {
		if j != self {
			urls = append(urls, q.URL())
		}
	}
	return strings.Join(urls, ",")
}

// waitReady polls the status endpoint until it answers (10 s at most).
func (p *ServerProc) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	c := &http.Client{Timeout: time.Second}
	for {
		resp, err := c.Get(p.URL() + StatusPath)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if p.child.Exited() || time.Now().After(deadline) {
			return fmt.Errorf("eureka %s did not answer on %s within 10 s (exited: %v): %v", p.name, p.url, p.child.Exited(), err)
		}
		if err := clock.SleepFor(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
}

// Kill SIGKILLs the server process and waits until it is gone.
func (p *ServerProc) Kill() { p.child.Kill() }

// Alive reports whether the process still runs.
func (p *ServerProc) Alive() bool { return !p.child.Exited() }

// Step steps the server's wall clock by d (model time).
func (p *ServerProc) Step(d time.Duration) error {
	_, err := p.child.Control("step "+d.String(), controlTimeout)
	return err
}

// Delay adds d (model time) of latency to every request the server handles.
func (p *ServerProc) Delay(d time.Duration) error {
	_, err := p.child.Control("delay "+d.String(), controlTimeout)
	return err
}

// Stats returns the server's current state and replication counters.
func (p *ServerProc) Stats() (ControlStats, error) {
	var s ControlStats
	return s, p.query("stats", &s)
}

// History returns what the server recorded.
func (p *ServerProc) History() (History, error) {
	var h History
	return h, p.query("history", &h)
}

// ResetWake starts the span Wake reports.
func (p *ServerProc) ResetWake() error {
	_, err := p.child.Control("wake reset", controlTimeout)
	return err
}

// Wake is what the server process's own wake probe saw since ResetWake
// (real time: a late wake-up of the process, whatever its model clock).
func (p *ServerProc) Wake() (clock.WakeStats, error) {
	var s clock.WakeStats
	return s, p.query("wake", &s)
}

func (p *ServerProc) query(cmd string, v any) error {
	ans, err := p.child.Control(cmd, controlTimeout)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(ans), v); err != nil {
		return fmt.Errorf("eureka %s %s: decoding: %w", p.name, cmd, err)
	}
	return nil
}
