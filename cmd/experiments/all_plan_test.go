package main

import (
	"slices"
	"strconv"
	"testing"
)

// TestAllPassesItsCommonFlags: every planned run gets all's seed, runs and
// --quiet (a boolean flag has no separate value: it was once dropped as an
// unpaired one), and the port base only where the scenario listens.
func TestAllPassesItsCommonFlags(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		o, err := parseAll([]string{"--runs", "3", "--seed", "7", "--variants", "--quiet=" + strconv.FormatBool(quiet)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range o.plan() {
			if !containsPair(r.args, "--seed", "7") || !containsPair(r.args, "--runs", "3") {
				t.Errorf("%s: args %v lack --seed 7 or --runs 3", r.name, r.args)
			}
			if got := slices.Contains(r.args, "--quiet"); got != quiet {
				t.Errorf("%s (all --quiet=%v): args %v", r.name, quiet, r.args)
			}
			if listens := r.spec.Ground.Offers("port-base"); listens != containsPair(r.args, "--port-base", "9150") {
				t.Errorf("%s: args %v, port base wanted: %v", r.name, r.args, listens)
			}
		}
	}
}

func containsPair(args []string, name, value string) bool {
	i := slices.Index(args, name)
	return i >= 0 && i+1 < len(args) && args[i+1] == value
}

// TestAllPassesEurekaToTheEurekaScenarios: all --eureka real reaches every
// scenario that takes --eureka, and no other.
func TestAllPassesEurekaToTheEurekaScenarios(t *testing.T) {
	o, err := parseAll([]string{"--eureka", "real"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range o.plan() {
		got, want := containsPair(r.args, "--eureka", "real"), takesFlag(r.spec, "eureka")
		if got != want {
			t.Errorf("%s: args %v, --eureka real wanted: %v", r.name, r.args, want)
		}
		if got {
			n++
		}
	}
	if n != 5 {
		t.Errorf("--eureka real reached %d scenarios, want the 5 Eureka ones", n)
	}
	if _, err := parseAll([]string{"--eureka", "both"}); err == nil {
		t.Error("all --eureka both was accepted")
	}
}

// TestAllOnlyNamesAVariant: --only runs a variant alone by its name, a
// scenario without its variants unless --variants, and refuses a name
// that is neither.
func TestAllOnlyNamesAVariant(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--only", "zookeeper-cp--packets"}, []string{"zookeeper-cp--packets"}},
		{[]string{"--only", "zookeeper-cp"}, []string{"zookeeper-cp"}},
		{[]string{"--only", "minority-partition,zookeeper-cp--cut-leader"}, []string{"minority-partition", "zookeeper-cp--cut-leader"}},
	}
	for _, tc := range tests {
		o, err := parseAll(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		var got []string
		for _, r := range o.plan() {
			got = append(got, r.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: planned %v, want %v", tc.args, got, tc.want)
		}
	}
	if _, err := parseAll([]string{"--only", "zookeeper-cp--nope"}); err == nil {
		t.Error("all --only zookeeper-cp--nope was accepted")
	}
}
