package anyregistry

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/netns"
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
	// Files is --file, once per experiment: where X was read from (a file,
	// or a built-in's name; several run one after another on one world,
	// experiment.Chain); a saved history carries X itself.
	Files []string
	// Connect is --connect: a registry the harness did not start, in the
	// world's own form (a world that can attach: rig.Attacher);
	// ConnectRemote is --connect-allow-remote.
	Connect       string
	ConnectRemote bool
	// FaultFor is --fault-for: the length of the experiment's one healed fault step instead of its
	// own for (0: its own); what follows moves with the heal (stretch).
	FaultFor time.Duration
	// stretched marks X as stretched by FaultFor already.
	stretched bool
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
	return rig.DefaultRegistry()
}

// Flags binds --registry (and, for a user's file, --file).
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Registry, "registry", c.Registry, "the world it runs on: "+registryList()+" (default: the experiment's, else "+string(rig.DefaultRegistry())+")")
	if c.fromFile {
		fs.Var((*fileList)(&c.Files), "file", "the experiment `file` (YAML or JSON) or a built-in's name; given again, the next experiment, "+
			"run after it on the same started world")
	}
	fs.StringVar(&c.Connect, "connect", c.Connect, "run on a registry the harness did not start, at this `address` in the world's own form "+
		"(experiments registries says each world's form); only faults on the client links and instances; nothing is left there")
	fs.DurationVar(&c.FaultFor, "fault-for", c.FaultFor, "the `length` of the experiment's one healed fault step instead of its own for; "+
		"the steps after it and the run's end move with the heal (sweep it: experiments sweep NAME --param fault-for 18s,25s,40s)")
	fs.BoolVar(&c.ConnectRemote, "connect-allow-remote", c.ConnectRemote, "allow --connect off the loopback range (a chaos tool must not reach production by accident)")
}

// Validate loads --file (not for a saved run, whose history carries the
// experiment; several, chained), and refuses, in one line, a registry that is not here or
// cannot make one of the experiment's faults, probes or clients.
func (c *Config) Validate(common scenarios.Common) error {
	if len(c.Files) > 0 && !common.Saved && c.X.Name == "" {
		x, err := Chained(c.Files)
		if err != nil {
			return err
		}
		c.X = x
	}
	if c.X.Name == "" {
		if common.Saved {
			return nil // the history carries the experiment
		}
		return scenarios.Usagef("no experiment: give its file (experiments run FILE)")
	}
	if err := c.applyFaultFor(); err != nil {
		return scenarios.Usagef("%v", err)
	}
	reg, err := rig.RegistryFor(c.registry())
	if err != nil {
		return scenarios.Usagef("--registry: %v", err)
	}
	if err := reg.Can(c.X); err != nil {
		return scenarios.Usagef("%s on %s: %v", c.X.Name, reg.Name(), err)
	}
	if !common.Saved && common.Explicit["net"] && common.Net != rig.Private {
		for i, s := range c.X.Timeline {
			if s.NeedsPackets() {
				return scenarios.Usagef("%s: timeline[%d] (%s, how: drop) drops real packets: it needs --net private", c.X.Name, i, s.Fault)
			}
		}
	}
	return c.validateConnect(reg)
}

// validateConnect refuses --connect for a world that cannot attach, an
// address it cannot use, or a step an attached registry cannot make.
func (c *Config) validateConnect(reg rig.Registry) error {
	if c.Connect == "" {
		if c.ConnectRemote {
			return scenarios.Usagef("--connect-allow-remote needs --connect")
		}
		return nil
	}
	a, ok := reg.(rig.Attacher)
	if !ok {
		return scenarios.Usagef("--connect: %s cannot run on a registry the harness did not start", reg.Name())
	}
	if err := a.CheckTarget(c.target()); err != nil {
		return scenarios.Usagef("--connect: %v", err)
	}
	if err := a.CanAttached(c.X); err != nil {
		return scenarios.Usagef("%s on %s at --connect: %v", c.X.Name, reg.Name(), err)
	}
	return nil
}

// target is --connect as the rig's Target (nil without it).
func (c *Config) target() rig.Target {
	return rig.Target{Address: c.Connect, AllowRemote: c.ConnectRemote}
}

// Defaults takes --duration from the experiment (read from --file first,
// for a user's; an unreadable file is Validate's to report, stretched by
// --fault-for), and --net private inside the namespace for an experiment
// that drops packets.
func (c *Config) Defaults(common *scenarios.Common) {
	if len(c.Files) > 0 && c.X.Name == "" && !common.Saved {
		if x, err := Chained(c.Files); err == nil {
			c.X = x
		}
	}
	_ = c.applyFaultFor() // its error is Validate's to report
	if c.NeedsPrivateNet() && netns.Inside() {
		common.Net = rig.Private // the command re-executed itself into the namespace for it (scenarios.PrivateNetter)
	}
	if c.X.Duration > 0 {
		common.Duration = c.X.Duration.D()
	}
}

// NeedsPrivateNet reports whether a step of the experiment (or of those --file names, not read
// yet) drops real packets (how: drop), which only a run in a private network namespace makes.
func (c *Config) NeedsPrivateNet() bool {
	x := c.X
	if x.Name == "" && len(c.Files) > 0 {
		x, _ = Chained(c.Files) // one that cannot be read drops nothing: Validate reports it
	}
	for _, s := range x.Timeline {
		if s.NeedsPackets() {
			return true
		}
	}
	return false
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
	if c.Connect != "" {
		t := c.target()
		env.Attach = &t
	}
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
