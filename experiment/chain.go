package experiment

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Chain returns the experiments xs run one after another on one started
// world, as one experiment: its timeline is each one's, moved by the
// durations before it, and it lasts their sum; it is named "a-then-b-then-c". The
// world starts once, so a chain saves every start but the first (a real
// cluster's JVMs take a minute to start on a small machine). What follows
// each fault is judged up to the next fault, as in any experiment with
// several faults.
//
// The experiments must make the same world: the same instances and the
// same callers, and no two registries named. Each one's faults must be
// healed within its own duration, and none but the last may crash an
// instance, so that every experiment after the first starts on the world
// it was written for. An experiment that names its checks cannot be
// chained (a chain judges every check).
func Chain(xs []Experiment) (Experiment, error) {
	if len(xs) == 0 {
		return Experiment{}, errors.New("chain: no experiment")
	}
	if len(xs) == 1 {
		return xs[0], nil
	}
	first := xs[0]
	out := Experiment{Registry: first.Registry, Instances: first.Instances, Callers: first.Callers}
	var names, summaries []string
	for i, x := range xs {
		if err := chainable(first, x, i == len(xs)-1); err != nil {
			return Experiment{}, fmt.Errorf("chain: %s: %w", x.Name, err)
		}
		if out.Registry == "" {
			out.Registry = x.Registry
		}
		for _, s := range x.Timeline {
			s.At += out.Duration
			out.Timeline = append(out.Timeline, s)
		}
		out.Duration += x.Duration
		names, summaries = append(names, x.Name), append(summaries, x.Name+" ("+x.Summary+")")
	}
	out.Name = strings.Join(names, "-then-")
	out.Summary = "one after another on one started world: " + strings.Join(summaries, "; then ")
	if err := out.Validate(); err != nil {
		return Experiment{}, fmt.Errorf("chain: %w", err)
	}
	return out, nil
}

// chainable says why x cannot follow first in a chain (nil: it can); last
// marks the chain's last experiment.
func chainable(first, x Experiment, last bool) error {
	switch {
	case x.Registry != "" && first.Registry != "" && x.Registry != first.Registry:
		return fmt.Errorf("registry %s, but %s names %s", x.Registry, first.Name, first.Registry)
	case x.Instances != first.Instances:
		return fmt.Errorf("instances differ from %s's: a chain runs on one world", first.Name)
	case !reflect.DeepEqual(x.Callers, first.Callers):
		return fmt.Errorf("callers differ from %s's: a chain runs on one world", first.Name)
	case len(x.Checks) > 0:
		return errors.New("names its checks: a chain judges every check")
	}
	if last {
		return nil
	}
	for i, s := range x.Timeline {
		switch {
		case s.Fault == CrashInstance:
			return fmt.Errorf("timeline[%d] crashes an instance for good: only the chain's last experiment may", i)
		case s.Fault != "" && s.For <= 0:
			return fmt.Errorf("timeline[%d] (%s) is never healed: only the chain's last experiment may leave a fault in place", i, s.Fault)
		}
	}
	return nil
}
