package nemesis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"sdchaos/cluster"
)

// safeValue is what a placeholder's value may hold: a template may put it
// anywhere (also inside quotes) because nothing in it means anything to sh.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9._:/@+=,%-]*$`)

// maxOutput bounds the output kept of one command.
const maxOutput = 4096

// Run is one command the nemesis ran.
type Run struct {
	// Request is the action, member and direction.
	Request cluster.Request
	// Command is the rendered command line.
	Command string
	// Output is what it printed (stdout and stderr, at most 4 KiB).
	Output string
	// Err is why it failed (non-zero exit, timeout), empty on success.
	Err string
	// Start and End bound the run.
	Start, End time.Time
}

// Nemesis runs a File's commands on a cluster's members; it implements
// cluster.Nemesis. It remembers the healing action of every fault it
// injected until that action succeeds, for HealAll.
type Nemesis struct {
	f *File
	// Observe, when set, receives every run (for the run's history).
	Observe func(Run)

	mu      sync.Mutex
	pending map[string]cluster.Request // key: action/member/direction
}

// New returns a nemesis running f's commands.
func New(f *File) *Nemesis { return &Nemesis{f: f, pending: map[string]cluster.Request{}} }

// File returns the nemesis's file.
func (n *Nemesis) File() *File { return n.f }

// healOf returns the action that undoes a (and false for a healing action).
func healOf(a cluster.Action) (cluster.Action, bool) {
	switch a {
	case cluster.ActKill:
		return cluster.ActStart, true
	case cluster.ActPause:
		return cluster.ActResume, true
	case cluster.ActIsolate:
		return cluster.ActHeal, true
	}
	return "", false
}

func key(r cluster.Request) string {
	return fmt.Sprintf("%s/%s/%t", r.Action, r.Member.Name, r.OneWay)
}

// Do runs r's command. Before an injecting action runs, its healing action
// is remembered (the command may have half worked); a healing action that
// succeeds is forgotten. An action the file does not define is an error
// wrapping cluster.ErrNoNemesis.
func (n *Nemesis) Do(ctx context.Context, r cluster.Request) (string, error) {
	if !n.f.Has(r.Action) {
		return "", fmt.Errorf("%w: %s defines no %q action", cluster.ErrNoNemesis, n.f.Path, r.Action)
	}
	if h, ok := healOf(r.Action); ok {
		hr := cluster.Request{Action: h, Member: r.Member, OneWay: r.OneWay}
		n.mu.Lock()
		n.pending[key(hr)] = hr
		n.mu.Unlock()
	}
	out, err := n.run(ctx, r)
	if err == nil && r.Action.Healing() {
		n.mu.Lock()
		delete(n.pending, key(r))
		n.mu.Unlock()
	}
	return out, err
}

// Pending returns the healing actions not yet run successfully.
func (n *Nemesis) Pending() []cluster.Request {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]cluster.Request, 0, len(n.pending))
	for _, r := range n.pending {
		out = append(out, r)
	}
	return out
}

// HealAll runs every pending healing action (each with its own timeout,
// even when ctx is done: leaving a fault in place is worse than a late
// exit) and returns the errors of those that failed; they stay pending.
// Running it again after success does nothing.
func (n *Nemesis) HealAll(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for _, r := range n.Pending() {
		if _, err := n.Do(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// run renders and runs one command with its timeout, in its own process
// group (a timeout kills the whole group), and reports it to Observe.
func (n *Nemesis) run(ctx context.Context, r cluster.Request) (string, error) {
	line, err := n.f.render(r)
	if err != nil {
		return "", err
	}
	c := n.f.Actions[r.Action]
	timeout := time.Duration(c.Timeout)
	if timeout == 0 {
		timeout = time.Duration(n.f.Timeout)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", line)
	cmd.Env = append(os.Environ(), "SDCHAOS_NEMESIS_DIR="+n.f.Dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	run := Run{Request: r, Command: line, Start: time.Now()}
	err = cmd.Run()
	run.End, run.Output = time.Now(), truncate(buf.String())
	if cctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	if err != nil {
		err = fmt.Errorf("nemesis %s on %s: `%s`: %w%s", r.Action, r.Member.Name, line, err, outputNote(run.Output))
		run.Err = err.Error()
	}
	if n.Observe != nil {
		n.Observe(run)
	}
	return run.Output, err
}

func truncate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxOutput {
		s = s[:maxOutput] + "…"
	}
	return s
}

func outputNote(out string) string {
	if out == "" {
		return ""
	}
	first, _, _ := strings.Cut(out, "\n")
	return " (output: " + first + ")"
}

// render fills r's template with the member's values.
func (f *File) render(r cluster.Request) (string, error) {
	c := f.Actions[r.Action]
	t := c.Command
	if pm, ok := c.PerMember[r.Member.Name]; ok {
		t = pm
	}
	if t == "" {
		return "", fmt.Errorf("action %q has no command for member %s", r.Action, r.Member.Name)
	}
	vals, err := f.values(r)
	if err != nil {
		return "", err
	}
	var bad error
	out := placeholderRE.ReplaceAllStringFunc(t, func(p string) string {
		name := p[1 : len(p)-1]
		v, ok := vals[name]
		if !ok && bad == nil {
			bad = fmt.Errorf("action %q on member %s: no value for %s (give it under \"members\")", r.Action, r.Member.Name, p)
		}
		if ok && !safeValue.MatchString(v) && bad == nil {
			bad = fmt.Errorf("action %q on member %s: value %q of %s holds characters sh would interpret", r.Action, r.Member.Name, v, p)
		}
		return v
	})
	return out, bad
}

// values returns every placeholder's value for r's member.
func (f *File) values(r cluster.Request) (map[string]string, error) {
	m := r.Member
	dir := "both"
	if r.OneWay {
		dir = "one-way"
	}
	v := map[string]string{"name": m.Name, "member_id": m.ID, "client_url": m.ClientURL, "peer_url": m.PeerURL, "direction": dir}
	for _, p := range []struct{ url, host, port string }{{m.ClientURL, "client_host", "client_port"}, {m.PeerURL, "peer_host", "peer_port"}} {
		if p.url == "" {
			continue
		}
		u, err := url.Parse(p.url)
		if err != nil {
			return nil, fmt.Errorf("member %s: URL %q: %w", m.Name, p.url, err)
		}
		host, port, err := net.SplitHostPort(u.Host)
		if err != nil {
			host, port = u.Host, ""
		}
		v[p.host], v[p.port] = host, port
	}
	if mv, ok := f.Members[m.Name]; ok && mv.DataDir != "" {
		v["data_dir"] = mv.DataDir
	}
	return v, nil
}
