package eurekamodel

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
)

// ServerCommand is the hidden sub-command that runs one server process.
const ServerCommand = "__eureka-server"

func init() { childproc.Register(ServerCommand, serverMain) }

// serverArgs are the parameters of one server process.
type serverArgs struct {
	name, listen, peers string
	epochNs             int64
	factor              float64
	seed                uint64
	config              string
}

func (a serverArgs) argv() []string {
	return []string{"--name", a.name, "--listen", a.listen, "--peers", a.peers,
		"--epoch", fmt.Sprint(a.epochNs), "--scale", fmt.Sprint(a.factor), "--seed", fmt.Sprint(a.seed),
		"--config", a.config}
}

func parseServerArgs(args []string) (serverArgs, Config, error) {
	var a serverArgs
	fs := flag.NewFlagSet(ServerCommand, flag.ContinueOnError)
	fs.StringVar(&a.name, "name", "", "server name")
	fs.StringVar(&a.listen, "listen", "", "127.0.0.1:port")
	fs.StringVar(&a.peers, "peers", "", "comma-separated peer URLs")
	fs.Int64Var(&a.epochNs, "epoch", 0, "real instant of model time zero (Unix ns)")
	fs.Float64Var(&a.factor, "scale", 1, "model seconds per real second")
	fs.Uint64Var(&a.seed, "seed", 1, "seed of the eviction choice")
	fs.StringVar(&a.config, "config", "", "model Config as JSON")
	if err := fs.Parse(args); err != nil {
		return a, Config{}, err
	}
	var cfg Config
	if err := json.Unmarshal([]byte(a.config), &cfg); err != nil {
		return a, cfg, fmt.Errorf("--config: %w", err)
	}
	if a.name == "" || a.listen == "" || a.epochNs == 0 || a.factor <= 0 {
		return a, cfg, errors.New("--name, --listen, --epoch and a positive --scale are required")
	}
	return a, cfg, cfg.Validate()
}

// serverMain runs one server until SIGTERM/SIGINT or until the harness is gone.
func serverMain(args []string) int {
	a, cfg, err := parseServerArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, ServerCommand+":", err)
		return 2
	}
	// Re-anchor the shared epoch on this process's monotonic clock.
	epoch := time.Now().Add(-time.Since(time.Unix(0, a.epochNs)))
	scale := NewScale(epoch, a.factor)
	var peers []string
	if a.peers != "" {
		peers = strings.Split(a.peers, ",")
	}
	srv := NewServer(a.name, cfg, scale, scale.Clock(), peers, a.seed)
	ln, err := net.Listen("tcp", a.listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, ServerCommand+": listening:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() { _ = http.Serve(ln, srv.Handler()) }()
	var wake clock.WakeProbe
	go wake.Run(ctx, time.Time{})
	go childproc.Serve(control{srv, &wake}.handle)
	srv.Run(ctx)
	return 0
}

// control answers the harness's commands inside a server process. Durations
// are model time.
//
//	stats          → Stats as JSON (with the peers' replication counters)
//	history        → History as JSON
//	step <d>       → steps the server's wall clock by d
//	delay <d>      → adds d of latency to every request (0 removes it)
//	wake           → the process's own wake-ups (clock.WakeStats) as JSON
//	wake reset     → starts the span "wake" reports
type control struct {
	s    *Server
	wake *clock.WakeProbe
}

// ControlStats is the answer to "stats".
type ControlStats struct {
	Stats
	Peers []PeerStats `json:"peers"`
}

func (c control) handle(line string) (string, error) {
	verb, arg, _ := strings.Cut(line, " ")
	switch verb {
	case "stats":
		return marshal(ControlStats{Stats: c.s.reg.Stats(), Peers: c.s.PeerStats()})
	case "history":
		return marshal(c.s.reg.History())
	case "wake":
		if arg == "reset" {
			c.wake.Reset()
			return "done", nil
		}
		return marshal(c.wake.Stats())
	case "step", "delay":
		d, err := time.ParseDuration(arg)
		if err != nil {
			return "", fmt.Errorf("%s: %w", verb, err)
		}
		if verb == "step" {
			c.s.reg.Step(d)
		} else {
			c.s.SetDelay(d)
		}
		return "done", nil
	}
	return "", fmt.Errorf("unknown command %q", verb)
}

func marshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
