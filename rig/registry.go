package rig

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"sdchaos/experiment"
)

// Registry is a world that runs experiments written as data: it says what
// it can make, builds the World that runs an experiment, and holds the
// registry's own rules the judges take their bands from. Every world that
// runs the registry-neutral experiments registers one (RegisterRegistry).
type Registry interface {
	// Name is the world's --registry value.
	Name() experiment.Registry
	// Describe says in one line what runs (the server, its version, its
	// members).
	Describe() string
	// Clients lists the real clients the world offers.
	Clients() []ClientInfo
	// Can returns nil when the world can make every step, caller and
	// setting of x, or an error matching ErrCannot that says in one line
	// what it cannot.
	Can(x experiment.Experiment) error
	// World returns the world that runs x (which Can accepted).
	World(env *Env, x experiment.Experiment) (World, error)
	// Rules are the registry's rules for x's checks.
	Rules(x experiment.Experiment) experiment.Rules
}

// Attacher is a Registry that can also run an experiment on a registry
// the harness did not start (Env.Attach): its World attaches, and leaves
// nothing there.
type Attacher interface {
	// CheckTarget returns an ErrCannot error for an address it cannot
	// use: malformed, or off the loopback range without AllowRemote.
	CheckTarget(t Target) error
	// CanAttached returns an ErrCannot error for a step of x that needs
	// what an attached registry does not give (its members' processes).
	CanAttached(x experiment.Experiment) error
}

// Target is a registry the harness did not start: its address in the
// registry's own form (a connect string, client URLs), and
// whether hosts off the loopback range are allowed.
type Target struct {
	Address     string
	AllowRemote bool
	// Settings are the world's own attachment settings beyond the address
	// (TLS, credentials, a nemesis file), of the world's own type;
	// nil for none.
	Settings any
}

// ClientInfo is a real client a world offers to experiments.
type ClientInfo struct {
	// Name is what an experiment's caller names (client: NAME).
	Name string
	// What says what it is (library, version, configuration).
	What string
}

// ErrCannot marks an experiment a world cannot run (a fault it cannot
// make, a client it does not have); the command exits 2 on it.
var ErrCannot = errors.New("the registry cannot run this experiment")

// cannotError is one line saying what a world cannot do; it matches
// ErrCannot.
type cannotError struct{ msg string }

func (e *cannotError) Error() string        { return e.msg }
func (e *cannotError) Is(target error) bool { return target == ErrCannot }

// Cannotf returns an ErrCannot error with a formatted one-line message.
func Cannotf(format string, a ...any) error {
	return &cannotError{msg: fmt.Sprintf(format, a...)}
}

var (
	registries  = map[experiment.Registry]Registry{}
	defaultName experiment.Registry
)

// RegisterDefaultRegistry is RegisterRegistry for the world an experiment
// that names none runs on; it panics when another world already is the
// default.
func RegisterDefaultRegistry(r Registry) {
	if defaultName != "" {
		panic("rig: two default registries: " + string(defaultName) + " and " + string(r.Name()))
	}
	RegisterRegistry(r)
	defaultName = r.Name()
}

// DefaultRegistry is the world an experiment that names none runs on ("" when
// no world registered itself as the default).
func DefaultRegistry() experiment.Registry { return defaultName }

// RegisterRegistry adds a world to the ones experiments may name; it
// panics on a duplicate (a programming error caught at start-up).
func RegisterRegistry(r Registry) {
	if _, dup := registries[r.Name()]; dup {
		panic("rig: duplicate registry " + string(r.Name()))
	}
	registries[r.Name()] = r
}

// RegistryFor returns the world called name, or a one-line ErrCannot
// error listing the ones there are.
func RegistryFor(name experiment.Registry) (Registry, error) {
	if r, ok := registries[name]; ok {
		return r, nil
	}
	return nil, Cannotf("no registry %q here (there are: %s)", name, strings.Join(RegistryNames(), ", "))
}

// RegistryNames lists the worlds experiments may name, sorted.
func RegistryNames() []string {
	out := make([]string, 0, len(registries))
	for n := range registries {
		out = append(out, string(n))
	}
	sort.Strings(out)
	return out
}

// CheckClients returns an ErrCannot error for the first real client of x
// that r does not offer.
func CheckClients(r Registry, x experiment.Experiment) error {
	have := map[string]bool{}
	var names []string
	for _, c := range r.Clients() {
		have[c.Name], names = true, append(names, c.Name)
	}
	for _, c := range x.Callers {
		if c.Kind == experiment.RealClient && c.Client != AllClients && !have[c.Client] {
			return Cannotf("%s has no client %q (it has: %s)", r.Name(), c.Client, strings.Join(names, ", "))
		}
	}
	return nil
}

// Caller defaults of an experiment's callers.
const (
	// DefaultRate is a caller's calls per second when the experiment gives none.
	DefaultRate = 40
	// DefaultRefresh is a policy caller's refresh interval when none is given.
	DefaultRefresh = time.Second
	// RefreshTimeout bounds a policy caller's refresh.
	RefreshTimeout = 500 * time.Millisecond
	// CallTimeout bounds one call to an instance.
	CallTimeout = time.Second
	// ProbeTimeout bounds one operation of a members probe.
	ProbeTimeout = 2 * time.Second
)

// RateOf returns a caller's rate (its default when 0).
func RateOf(c experiment.Caller) float64 {
	if c.Rate > 0 {
		return c.Rate
	}
	return DefaultRate
}

// RefreshOf returns a policy caller's refresh interval (its default when 0).
func RefreshOf(c experiment.Caller) time.Duration {
	if c.Refresh > 0 {
		return c.Refresh.D()
	}
	return DefaultRefresh
}

// AllClients is the client name that stands for every real client of the
// world the experiment runs on, each a caller named after its client.
const AllClients = "all"

// ExpandClients returns x with a caller naming AllClients replaced by one
// caller per real client r offers, named after it.
func ExpandClients(r Registry, x experiment.Experiment) experiment.Experiment {
	var cs []experiment.Caller
	for _, c := range x.Callers {
		if c.Kind != experiment.RealClient || c.Client != AllClients {
			cs = append(cs, c)
			continue
		}
		for _, info := range r.Clients() {
			e := c
			e.Name, e.Client = info.Name, info.Name
			cs = append(cs, e)
		}
	}
	x.Callers = cs
	return x
}
