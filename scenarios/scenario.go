// Package scenarios is the core every scenario room builds on: the
// registry of scenarios (Spec, Register, Lookup), the common flags and their
// parsing (Common, Parse), the shared parameters of the instances and
// callers, and flag types for lists. The scenarios themselves live in one
// room per source and world: article47, article40, nacosarticle (etcd),
// nacosincident (real Nacos) and eurekaarticle;
// each scenario is a plan (Run: the rig, the traffic, a timeline of typed
// fault and probe steps) and a pure judge (Judge: recorded history → typed
// measurement → checks, metrics and conclusion).
package scenarios

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
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
	// Runs is how many times to run (seeds Seed … Seed+Runs−1).
	Runs int
	// RetryInvalid is how many invalid runs are retried before giving up.
	RetryInvalid int
	// Quiet turns the live progress off.
	Quiet bool
	// JUnit, when set, is a file the checks are also written to as JUnit XML.
	JUnit string
	// Net is the run's network: rig.Loopback (the host's loopback, the
	// default) or rig.Private (a private namespace with packet faults; the
	// command re-executes itself inside one before the run).
	Net rig.Net
	// ExternalFlags are the external-mode flags as given; External is the
	// cluster they describe (nil: the run starts its own).
	ExternalFlags
	External *etcd.External
	// Saved marks arguments parsed from a saved history (ParseSaved): the
	// run is judged or drawn again, not run, so its environment (the private
	// network namespace) is not required.
	Saved bool
	// Explicit holds the names of the flags given on the command line.
	Explicit map[string]bool
}

// DefaultCommon returns the defaults of the common flags.
func DefaultCommon() Common {
	return Common{Seed: 1, Duration: 10 * time.Second, PortBase: 9150, Format: "table", Runs: 1, RetryInvalid: 2, Net: rig.Loopback}
}

// Env is what a running scenario gets: the run's settings, its seeded
// random source, logger, progress writer and process supervisor.
type Env = rig.Env

// NewEnv returns an Env for c whose random source is seeded from c.Seed.
func NewEnv(c Common, log *slog.Logger, progress io.Writer) *Env {
	env := rig.NewEnv(c.Seed, c.Duration, c.PortBase, c.Keep, log, progress)
	env.Quiet, env.Net = c.Quiet, c.Net
	if c.External != nil {
		env.Attach = &rig.Target{Address: strings.Join(c.External.Endpoints, ","), Settings: c.External}
	}
	return env
}

// Config is one scenario: its parameters, its plan (Run) and its judge. A
// fresh Config comes from Spec.New with the article's defaults filled in.
type Config interface {
	// Flags binds the scenario's own flags to fs, with the current values as defaults.
	Flags(fs *flag.FlagSet)
	// Validate reports a bad combination of values as a Usagef error that
	// quotes the offending values.
	Validate(c Common) error
	// Run performs the experiment and returns what it recorded. A setup
	// failure that is the user's to fix (port in use) wraps ErrUsage.
	Run(ctx context.Context, env *Env) (*history.History, error)
	// Judge turns a recorded history into the result (tables, metrics,
	// checks, conclusion; without Scenario/Seed/Params/WallSeconds, which
	// the caller fills in). It is pure: the same history gives the same
	// result, so it is tested without running anything.
	Judge(h *history.History) *report.Result
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

// PrivateNetter is implemented by a Config whose runs drop real packets at
// their defaults: the command re-executes itself into a private network
// namespace for it unless --net is given (its Defaults then sets --net's
// default to private inside the namespace).
type PrivateNetter interface {
	// NeedsPrivateNet reports whether the run needs --net private.
	NeedsPrivateNet() bool
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
	// Variants are reference runs beside the defaults that `all --variants`
	// also makes (a flag that puts the run in the article's condition, a
	// parameter that shows another regime).
	Variants []Variant
	// ModelTime says that --duration and the scenario's durations are model
	// time (the Eureka model runs faster than real time).
	ModelTime bool
	// Ground is what the scenario runs on; it decides which of the common
	// flags the scenario offers (EtcdMembers, the zero value: all of them).
	Ground Ground
	// FromFile marks the scenario that runs a user's experiment file
	// (`experiments run FILE`): it is not listed among the scenarios.
	FromFile bool
}

// Variant is a named reference run of a scenario with extra flags.
type Variant struct {
	// Name is appended to the scenario's name in output files ("fail-fast").
	Name string
	// Args are the flags the variant adds.
	Args []string
	// Why says in one line what the variant shows.
	Why string
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

// All returns every registered scenario (but the one that runs a user's
// file) in the order of the sources
// (article 47, article 40, Nacos, Eureka), then by article section and name.
func All() []Spec {
	out := make([]Spec, 0, len(specs))
	for _, s := range specs {
		if !s.FromFile {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := sourceRank(out[i].Article), sourceRank(out[j].Article)
		switch {
		case ri != rj:
			return ri < rj
		case out[i].Article != out[j].Article:
			return out[i].Article < out[j].Article
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// sourceOrder is the order of the source documents.
var sourceOrder = []string{"article 47", "article 40", "Nacos", "Eureka"}

func sourceRank(article string) int {
	for i, p := range sourceOrder {
		if strings.HasPrefix(article, p) {
			return i
		}
	}
	return len(sourceOrder)
}
