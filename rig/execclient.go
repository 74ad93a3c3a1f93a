package rig

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/history"
)

// The line protocol of a user's client (--client 'exec:CMD ARGS'): the
// harness starts CMD with these variables in its environment, and CMD
// prints one JSON line per call on stdout:
//
//	{"start":"<RFC 3339, ns>","end":"<RFC 3339, ns>","target":"host:port","outcome":"ok|fail|unknown","err":"…"}
//
// optionally with "scheduled" (when the call was due). Times are the
// host's wall clock. The harness kills CMD (its whole process group) at
// the end of the run. Beside these variables, every world hands over
// EnvRegistry and EnvEndpoints, and the variables of its own that say
// where its instances are listed (each world's doc names them).
const (
	// EnvRegistry: the world the client runs on, an experiment's
	// --registry value.
	EnvRegistry = "SDCHAOS_REGISTRY"
	// EnvEndpoints: the registry's addresses in the world's own form,
	// comma-separated (client URLs, host:port, a connect string; each
	// world's doc says which).
	EnvEndpoints = "SDCHAOS_ENDPOINTS"
	// EnvRate: calls per second the client should make.
	EnvRate = "SDCHAOS_RATE"
	// EnvStart and EnvEnd: the run's time zero and end (RFC 3339, ns):
	// the first call is due at start, the client should stop at end.
	EnvStart = "SDCHAOS_START"
	EnvEnd   = "SDCHAOS_END"
	// EnvCallTimeout: the deadline of one call (a Go duration).
	EnvCallTimeout = "SDCHAOS_CALL_TIMEOUT"
)

// ExecClientOp is the op that records how the client went: Count the
// malformed lines, Value the number of lines read, Outcome fail (Err the
// exit status) when it exited before the end of the run.
const ExecClientOp = history.ClientOp

// ExecConfig describes a user's client.
type ExecConfig struct {
	// Name labels its calls ("client").
	Name string
	// Argv is the program and its arguments.
	Argv        []string
	Rate        float64
	CallTimeout time.Duration
	// World is the world's part of the protocol's environment ("NAME=value":
	// EnvRegistry, EnvEndpoints and the world's own variables), which the
	// world fills in when it starts the client.
	World []string
}

// execLine is one line of the client's output.
type execLine struct {
	Scheduled *time.Time `json:"scheduled"`
	Start     time.Time  `json:"start"`
	End       time.Time  `json:"end"`
	Target    string     `json:"target"`
	Outcome   string     `json:"outcome"`
	Err       string     `json:"err"`
}

// ExecClient runs a user's client as Traffic.
type ExecClient struct {
	cfg ExecConfig
	env *Env
}

// NewExecClient returns the user's client of the run on env; cfg.World
// holds the world's part of its environment.
func NewExecClient(env *Env, cfg ExecConfig) *ExecClient {
	return &ExecClient{cfg: cfg, env: env}
}

// Run starts the program at time zero, reads its lines until the end of the
// run (+ one call timeout), kills it, and records every call and the
// ExecClientOp summary.
func (c *ExecClient) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	sup, err := c.env.Supervisor()
	if err != nil {
		return err
	}
	dir, err := sup.TempDir("sdchaos-client-*", c.env.Keep)
	if err != nil {
		return err
	}
	end := rec.T0().Add(d)
	child, out, err := sup.StartExternal(childproc.ExternalSpec{Name: "client " + c.cfg.Argv[0], Path: c.cfg.Argv[0],
		Args: c.cfg.Argv[1:], Env: c.environ(rec.T0(), end), LogPath: filepath.Join(dir, "client.log")})
	if err != nil {
		return fmt.Errorf("starting the client %q: %w", strings.Join(c.cfg.Argv, " "), err)
	}
	lines := make(chan readResult, 1)
	go func() { lines <- c.read(out, rec) }()
	early := exitedBefore(ctx, child, end.Add(-rigExitSlack))
	// The client has until the end plus one call to finish; then it is killed.
	_ = clock.SleepUntil(ctx, end.Add(c.cfg.CallTimeout+time.Second))
	child.Kill()
	res := <-lines
	out.Close()
	op := history.Op{Caller: ExecClientOp, Kind: history.OpGate, Count: res.bad, Value: fmt.Sprint(res.lines), Outcome: history.OK,
		Scheduled: d, Start: d, End: d}
	if early {
		op.Outcome, op.Err = history.Fail, "exited before the end of the run: "+exitText(child.Err())
	}
	rec.Add(op)
	return nil
}

// rigExitSlack is how early before the end a client may stop and still
// count as having run until the end (its last call is due just before).
const rigExitSlack = 500 * time.Millisecond

// exitedBefore reports whether the child exited before t.
func exitedBefore(ctx context.Context, child *childproc.Child, t time.Time) bool {
	wait := time.NewTimer(time.Until(t))
	defer wait.Stop()
	select {
	case <-child.Done():
		return true
	case <-wait.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func exitText(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// environ is the protocol's environment.
func (c *ExecClient) environ(t0, end time.Time) []string {
	return append(append([]string(nil), c.cfg.World...),
		EnvRate+"="+fmt.Sprint(c.cfg.Rate),
		EnvStart+"="+t0.Format(time.RFC3339Nano),
		EnvEnd+"="+end.Format(time.RFC3339Nano),
		EnvCallTimeout+"="+c.cfg.CallTimeout.String(),
	)
}

type readResult struct{ lines, bad int }

// read turns each line into an op; a line that does not parse is counted.
func (c *ExecClient) read(out io.Reader, rec *history.Recorder) readResult {
	var res readResult
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for k := 0; sc.Scan(); k++ {
		res.lines++
		op, err := c.parse(sc.Bytes(), k, rec)
		if err != nil {
			res.bad++
			continue
		}
		rec.Add(op)
	}
	return res
}

func (c *ExecClient) parse(b []byte, k int, rec *history.Recorder) (history.Op, error) {
	var l execLine
	if err := json.Unmarshal(b, &l); err != nil {
		return history.Op{}, err
	}
	if l.Start.IsZero() || l.End.Before(l.Start) {
		return history.Op{}, errors.New("start missing or after end")
	}
	var o history.Outcome
	if err := o.UnmarshalText([]byte(l.Outcome)); err != nil {
		return history.Op{}, err
	}
	op := history.Op{Caller: c.cfg.Name, Kind: history.OpCall, Seq: k, Scheduled: rec.Offset(l.Start), Start: rec.Offset(l.Start),
		End: rec.Offset(l.End), Target: l.Target, Outcome: o, Err: l.Err}
	if l.Scheduled != nil {
		op.Scheduled, op.Paced = rec.Offset(*l.Scheduled), true
	}
	return op, nil
}
