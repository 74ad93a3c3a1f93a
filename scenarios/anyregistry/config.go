package anyregistry

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
	"sdchaos/scenarios"
)

// Config is an experiment written as data, as a scenario: the experiment
// and the world it runs on.
type Config struct {
	// X is the experiment.
	X experiment.Experiment
	// Registry is --registry: the world it runs on.
	Registry string
	// File is --file: where X was read from (the experiment command's
	// spec); a saved history carries X itself.
	File string
	// fromFile marks the experiment command's config, which takes --file.
	fromFile bool
}

// record is what a run stores in its history: the world and the experiment.
type record struct {
	Registry   experiment.Registry   `json:"registry"`
	Experiment experiment.Experiment `json:"experiment"`
}

// registry returns the world the experiment runs on.
func (c *Config) registry() experiment.Registry {
	if c.Registry != "" {
		return experiment.Registry(c.Registry)
	}
	if c.X.Registry != "" {
		return c.X.Registry
	}
	return experiment.Etcd
}

// Flags binds --registry (and, for a user's file, --file).
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Registry, "registry", c.Registry, "the world it runs on: "+registryList()+" (default: the experiment's, else etcd)")
	if c.fromFile {
		fs.StringVar(&c.File, "file", c.File, "the experiment file (YAML or JSON)")
	}
}

// Validate loads --file (not for a saved run, whose history carries the
// experiment), and refuses, in one line, a registry that is not here or
// cannot make one of the experiment's faults, probes or clients.
func (c *Config) Validate(common scenarios.Common) error {
	if c.File != "" && !common.Saved && c.X.Name == "" {
		x, err := experiment.Load(c.File)
		if err != nil {
			return scenarios.Usagef("%v", err)
		}
		c.X = x
	}
	if c.X.Name == "" {
		if common.Saved {
			return nil // the history carries the experiment
		}
		return scenarios.Usagef("no experiment: give its file (experiments run FILE)")
	}
	reg, err := rig.RegistryFor(c.registry())
	if err != nil {
		return scenarios.Usagef("--registry: %v", err)
	}
	if err := reg.Can(c.X); err != nil {
		return scenarios.Usagef("%s on %s: %v", c.X.Name, reg.Name(), err)
	}
	return nil
}

// Defaults takes --duration from the experiment (read from --file first,
// for a user's; an unreadable file is Validate's to report).
func (c *Config) Defaults(common *scenarios.Common) {
	if c.File != "" && c.X.Name == "" && !common.Saved {
		if x, err := experiment.Load(c.File); err == nil {
			c.X = x
		}
	}
	if c.X.Duration > 0 {
		common.Duration = c.X.Duration.D()
	}
}

// Run builds the experiment's world and runs it through the one run path;
// the history carries the experiment.
func (c *Config) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	reg, err := rig.RegistryFor(c.registry())
	if err != nil {
		return nil, err
	}
	x := rig.ExpandClients(reg, c.X)
	x.Duration = experiment.Duration(env.Duration)
	env.Printf("%s on %s: %s", x.Name, reg.Describe(), x.Summary)
	w, err := reg.World(env, x)
	if err != nil {
		return nil, err
	}
	h, err := rig.Run(ctx, env, w)
	if err != nil {
		return nil, err
	}
	if h.Experiment, err = json.Marshal(record{Registry: reg.Name(), Experiment: x}); err != nil {
		return nil, fmt.Errorf("storing the experiment: %w", err)
	}
	return h, nil
}

// Judge judges the history by the rules of the world it ran on, from the
// experiment it carries.
func (c *Config) Judge(h *history.History) *report.Result {
	var rec record
	if err := json.Unmarshal(h.Experiment, &rec); err != nil || rec.Experiment.Name == "" {
		res := report.NewResult("")
		res.AddCheck(report.Yes("the history carries its experiment", "yes", "no").Invalid(whyNoExperiment(err)))
		return res
	}
	reg, err := rig.RegistryFor(rec.Registry)
	if err != nil {
		res := report.NewResult("")
		res.AddCheck(report.Yes("the history's registry is here", "yes", "no").Invalid(err.Error()))
		return res
	}
	return judge(reg, rec.Experiment, h)
}

func whyNoExperiment(err error) string {
	if err == nil {
		err = errors.New("it is empty")
	}
	return "the history holds no experiment: " + err.Error()
}

// registryList names the worlds --registry takes.
func registryList() string {
	names := rig.RegistryNames()
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
