package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"sdchaos/rig"
)

// TestRegistriesListsEveryWorld: every world that registered itself is
// listed with its clients, the default marked; an argument is refused.
func TestRegistriesListsEveryWorld(t *testing.T) {
	var out, errw bytes.Buffer
	if err := run(context.Background(), []string{"registries"}, &out, &errw); err != nil {
		t.Fatal(err)
	}
	for _, name := range rig.RegistryNames() {
		listed := "\n" + out.String()
		if !strings.Contains(listed, "\n"+name+": ") && !strings.Contains(listed, "\n"+name+" (the default): ") {
			t.Errorf("registries does not list %s:\n%s", name, out.String())
		}
	}
	if len(rig.RegistryNames()) < 4 || !strings.Contains(out.String(), "(the default)") || !strings.Contains(out.String(), "  client ") {
		t.Errorf("registries: want every world, the default marked and the clients:\n%s", out.String())
	}
	if err := run(context.Background(), []string{"registries", "x"}, &out, &errw); err == nil {
		t.Error("registries x: accepted")
	}
}
