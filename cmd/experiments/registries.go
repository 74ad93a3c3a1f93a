package main

import (
	"fmt"
	"io"

	"sdchaos/experiment"
	"sdchaos/rig"
	"sdchaos/scenarios"
)

// registries lists every world that registered itself: its --registry
// name, what runs there and the real clients an experiment may name.
func registries(w io.Writer, args []string) error {
	if len(args) > 0 {
		return scenarios.Usagef("registries: unexpected argument %q (it takes none)", args[0])
	}
	for _, name := range rig.RegistryNames() {
		r, err := rig.RegistryFor(experiment.Registry(name))
		if err != nil {
			return err
		}
		def := ""
		if r.Name() == rig.DefaultRegistry() {
			def = " (the default)"
		}
		fmt.Fprintf(w, "%s%s: %s\n", r.Name(), def, r.Describe())
		for _, c := range r.Clients() {
			fmt.Fprintf(w, "  client %s: %s\n", c.Name, c.What)
		}
	}
	return nil
}
