// Package scenarios holds the experiments, one file each. Every scenario
// registers itself (Register in an init function) with a name, a summary, and
// a factory for its configuration; the command line binds the configuration's
// flags, validates it and runs it.
package scenarios

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/report"
)

// ErrUsage marks an error in what the user asked for (bad flag value,
// unknown scenario, port in use, unwritable output dir). The command exits
// with code 2 on it. Wrap it with fmt.Errorf("...: %w", ErrUsage) or use Usagef.
var ErrUsage = errors.New("usage error")

// Usagef returns an error wrapping ErrUsage with a formatted message.
func Usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

// Common are the flags every scenario has.
type Common struct {
	// Seed seeds the run's only random source.
	Seed int64
	// Duration is the length of the measured timeline (scenarios may change
	// the default through Defaulter).
	Duration time.Duration
	// PortBase is the first port the run may listen on (127.0.0.1 only).
	PortBase int
	// Keep keeps the run's temp dir (etcd data dirs and logs).
	Keep bool
	// Format is the stdout format: table, markdown or json.
	Format string
	// Out, when set, is a directory where <scenario>.md and <scenario>.json are also written.
	Out string
	// Explicit holds the names of the flags given on the command line.
	Explicit map[string]bool
}

// DefaultCommon returns the defaults of the common flags.
func DefaultCommon() Common {
	return Common{Seed: 1, Duration: 10 * time.Second, PortBase: 9150, Format: "table"}
}

// Env is what a running scenario gets: the common flags, the run's random
// source (seeded from --seed), a logger for progress (stderr), and the
// context that is cancelled on Ctrl-C/SIGTERM.
type Env struct {
	Common
	Rand *rand.Rand
	Log  *slog.Logger
	// Progress receives human progress lines (stderr); never nil.
	Progress io.Writer

	supMu sync.Mutex
	sup   *childproc.Supervisor
}

// Supervisor returns the run's process supervisor, starting it on first use.
// Every child process and temp dir of the run goes through it, so Close
// cleans up whatever a scenario leaves.
func (e *Env) Supervisor() (*childproc.Supervisor, error) {
	e.supMu.Lock()
	defer e.supMu.Unlock()
	if e.sup == nil {
		s, err := childproc.NewSupervisor(e.Log)
		if err != nil {
			return nil, err
		}
		e.sup = s
	}
	return e.sup, nil
}

// Close kills every child process of the run and removes its temp dirs
// (unless --keep). It is safe to call more than once, from any goroutine.
func (e *Env) Close() error {
	e.supMu.Lock()
	s := e.sup
	e.supMu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}

// NewEnv returns an Env for c with a PCG source seeded from c.Seed.
func NewEnv(c Common, log *slog.Logger, progress io.Writer) *Env {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if progress == nil {
		progress = io.Discard
	}
	return &Env{Common: c, Rand: rand.New(rand.NewPCG(uint64(c.Seed), 0x5d5c4a05)), Log: log, Progress: progress}
}

// Config is one scenario's parameters and its run function. A fresh Config
// comes from Spec.New with the article's defaults filled in.
type Config interface {
	// Flags binds the scenario's own flags to fs, with the current values as defaults.
	Flags(fs *flag.FlagSet)
	// Validate reports a bad combination of values as a Usagef error that
	// quotes the offending values.
	Validate(c Common) error
	// Run performs the experiment and returns its result (without
	// Scenario/Seed/Params/WallSeconds, which the caller fills in). A setup
	// failure that is the user's to fix (port in use) wraps ErrUsage.
	Run(ctx context.Context, env *Env) (*report.Result, error)
}

// Defaulter is implemented by a Config that wants other defaults for the
// common flags (a simulation whose --duration defaults to 300s, say).
type Defaulter interface {
	// Defaults adjusts the common defaults before flags are bound. It is
	// called again after parsing when --duration was not given, and the
	// Duration it sets then is used: a timeline derived from the scenario's
	// own flags (an outage plus a recovery) follows them.
	Defaults(c *Common)
}

// Spec describes a registered scenario.
type Spec struct {
	// Name is the sub-command, e.g. "cache-on-failure".
	Name string
	// Article names the source measurement, e.g. "article 47.1".
	Article string
	// Summary is one line for `list`.
	Summary string
	// Help is the longer text for `help <name>`: setup, timeline, what counts as reproduced.
	Help string
	// New returns a Config with the defaults.
	New func() Config
}

var specs = map[string]Spec{}

// Register adds a scenario; it panics on a duplicate or incomplete spec
// (a programming error caught at start-up).
func Register(s Spec) {
	if s.Name == "" || s.New == nil || s.Summary == "" {
		panic(fmt.Sprintf("scenarios: incomplete spec %+v", s))
	}
	if _, dup := specs[s.Name]; dup {
		panic("scenarios: duplicate scenario " + s.Name)
	}
	specs[s.Name] = s
}

// Lookup returns the scenario called name.
func Lookup(name string) (Spec, bool) {
	s, ok := specs[name]
	return s, ok
}

// All returns every registered scenario sorted by article, then name.
func All() []Spec {
	out := make([]Spec, 0, len(specs))
	for _, s := range specs {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Article != out[j].Article {
			return out[i].Article < out[j].Article
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Printf writes one progress line to env.Progress (stderr in the command).
func (e *Env) Printf(format string, a ...any) {
	fmt.Fprintf(e.Progress, "  · "+format+"\n", a...)
}
