package anyregistry

import (
	"embed"
	"fmt"
	"path"

	"sdchaos/experiment"
	"sdchaos/scenarios"
)

// builtin holds the built-in experiments, one YAML file each: the same
// form a user writes.
//
//go:embed builtin/*.yaml
var builtin embed.FS

// FileSpec is the name of the scenario that runs a user's experiment file
// (`experiments run FILE` runs it with --file FILE).
const FileSpec = "experiment"

func init() {
	for _, x := range Builtins() {
		scenarios.Register(specOf(x, false))
	}
	scenarios.Register(specOf(experiment.Experiment{Name: FileSpec, Summary: "a user's experiment file (experiments run FILE)"}, true))
}

// Builtins returns the built-in experiments, by file name.
func Builtins() []experiment.Experiment {
	files, err := builtin.ReadDir("builtin")
	if err != nil {
		panic(err)
	}
	var out []experiment.Experiment
	for _, f := range files {
		b, err := builtin.ReadFile(path.Join("builtin", f.Name()))
		if err != nil {
			panic(err)
		}
		x, err := experiment.Parse(f.Name(), b)
		if err != nil {
			panic(fmt.Sprintf("anyregistry: built-in %v", err)) // a broken built-in is a programming error
		}
		out = append(out, x)
	}
	return out
}

// specOf is the scenario of experiment x (the file spec when fromFile).
func specOf(x experiment.Experiment, fromFile bool) scenarios.Spec {
	return scenarios.Spec{Name: x.Name, Article: "any registry", Summary: x.Summary, Help: help(x), FromFile: fromFile,
		New: func() scenarios.Config {
			if fromFile {
				return &Config{fromFile: true} // its experiment comes from --file, or from the saved history
			}
			return &Config{X: x}
		}}
}

// help is the experiment as its file says it, and where the bands come from.
func help(x experiment.Experiment) string {
	if x.Timeline == nil {
		return "Runs an experiment written as data: experiments run FILE... [--registry NAME]; several run one after another on one started world (see docs/experiments.md)."
	}
	b, err := experiment.Marshal(x, false)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("An experiment written as data (scenarios/anyregistry/builtin/%s.yaml); run it on any world with --registry NAME "+
		"(experiments registries lists them).\n\n%s\n"+
		"Bands: each world's own rules (rig.Registry.Rules, in the world's folder under worlds/), "+
		"named with their source in every check's basis.", x.Name, b)
}
