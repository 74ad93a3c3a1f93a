package anyregistry

import (
	"errors"
	"os"
	"strings"

	"sdchaos/experiment"
	"sdchaos/scenarios"
)

// Named returns the built-in experiment called name (builtin true), else
// the experiment in the file at name. A name that is neither is one line
// saying so; a file that cannot be used, one line naming its field.
func Named(name string) (x experiment.Experiment, builtin bool, err error) {
	for _, b := range Builtins() {
		if b.Name == name {
			return b, true, nil
		}
	}
	x, err = experiment.Load(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || !strings.ContainsAny(name, "./") {
			return x, false, scenarios.Usagef("%q is neither a built-in experiment (experiments list) nor a file", name)
		}
		return x, false, scenarios.Usagef("%v", err)
	}
	return x, false, nil
}

// Chained returns the experiments named (each a built-in's name or a file)
// as one: the one itself, or their chain (experiment.Chain), run one after
// another on one started world.
func Chained(names []string) (experiment.Experiment, error) {
	xs := make([]experiment.Experiment, 0, len(names))
	for _, n := range names {
		x, _, err := Named(n)
		if err != nil {
			return experiment.Experiment{}, err
		}
		xs = append(xs, x)
	}
	x, err := experiment.Chain(xs)
	if err != nil {
		return x, scenarios.Usagef("%v", err)
	}
	return x, nil
}

// fileList is a flag given once per experiment (--file A --file B).
type fileList []string

func (l *fileList) String() string { return strings.Join(*l, " ") }

func (l *fileList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
