package scenarios

import (
	"context"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
)

// fake is a scenario for testing the core: a --size flag and a duration
// derived from it.
type fake struct{ Size int }

func (f *fake) Flags(fs *flag.FlagSet) { fs.IntVar(&f.Size, "size", f.Size, "a size") }
func (f *fake) Validate(Common) error {
	if f.Size < 1 {
		return Usagef("--size (%d) must be positive", f.Size)
	}
	return nil
}
func (f *fake) Defaults(c *Common) { c.Duration = time.Duration(f.Size) * time.Second }
func (f *fake) Run(context.Context, *Env) (*history.History, error) {
	return &history.History{}, nil
}
func (f *fake) Judge(*history.History) *report.Result { return report.NewResult("") }

var fakeSpec = Spec{Name: "fake", Summary: "a test scenario", New: func() Config { return &fake{Size: 3} }}

func TestParse(t *testing.T) {
	tests := []struct {
		args     []string
		wantErr  string
		duration time.Duration
	}{
		{nil, "", 3 * time.Second},
		{[]string{"--size", "7"}, "", 7 * time.Second}, // a derived duration follows the flags
		{[]string{"--size", "7", "--duration", "2s"}, "", 2 * time.Second},
		{[]string{"--size", "0"}, "--size (0) must be positive", 0},
		{[]string{"--port-base", "9200"}, "", 3 * time.Second},
		{[]string{"--format", "xml"}, `--format "xml"`, 0},
		{[]string{"extra"}, `unexpected argument "extra"`, 0},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			c, _, params, err := Parse(fakeSpec, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrUsage) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Duration != tc.duration || params["duration"] != tc.duration.String() {
				t.Errorf("duration %s (param %q), want %s", c.Duration, params["duration"], tc.duration)
			}
			if _, ok := params["seed"]; ok {
				t.Error("seed is not an experiment parameter")
			}
		})
	}
}

func TestHelpFlagsLeaveOutWhatTheScenarioIgnores(t *testing.T) {
	virtual := fakeSpec
	virtual.Ground = VirtualClock
	fs, _, _ := NewFlagSet(virtual)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for _, n := range []string{"port-base", "keep"} {
		if slices.Contains(names, n) {
			t.Errorf("flag --%s offered although the scenario ignores it", n)
		}
	}
	if !slices.Contains(names, "size") || !slices.Contains(names, "duration") {
		t.Errorf("flags %v lack --size or --duration", names)
	}
}

func TestListFlagsRoundTrip(t *testing.T) {
	var s SecondsList
	if err := s.Set("1.5, 2,3s,5000ms"); err != nil {
		t.Fatal(err)
	}
	want := SecondsList{1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second}
	if !slices.Equal(s, want) || s.String() != "1.5,2,3,5" {
		t.Fatalf("SecondsList = %v (%q)", s, s.String())
	}
	var n IntList
	if err := n.Set("10000,1_000_000"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n, IntList{10000, 1000000}) || n.String() != "10000,1000000" {
		t.Fatalf("IntList = %v (%q)", n, n.String())
	}
	if err := n.Set("12,x"); err == nil {
		t.Error("a bad integer was accepted")
	}
}

// TestWorldOffersTheFlagsItsRunUses: each world binds the common flags
// that mean something there; the flags of every run stay on all of them.
func TestWorldOffersTheFlagsItsRunUses(t *testing.T) {
	tests := []struct {
		ground Ground
		want   map[string]bool
	}{
		{EtcdMembers, map[string]bool{"duration": true, "port-base": true, "keep": true, "net": true, "external": true, "seed": true}},
		{LoopbackServers, map[string]bool{"duration": true, "port-base": true, "keep": true, "net": false, "external": false, "seed": true}},
		{OwnMembers, map[string]bool{"duration": true, "port-base": true, "keep": true, "net": true, "external": false, "seed": true}},
		{VirtualClock, map[string]bool{"duration": true, "port-base": false, "keep": false, "net": false, "external": false, "seed": true}},
		{Computation, map[string]bool{"duration": false, "port-base": false, "keep": false, "net": false, "external": false, "seed": true}},
	}
	for _, tt := range tests {
		spec := fakeSpec
		spec.Ground = tt.ground
		fs, _, _ := NewFlagSet(spec)
		for name, want := range tt.want {
			if got := tt.ground.Offers(name); got != want {
				t.Errorf("%s offers %s = %v, want %v", tt.ground, name, got, want)
			}
			if name == "external" {
				name = "endpoints"
			}
			if bound := fs.Lookup(name) != nil; bound != want {
				t.Errorf("%s: flag --%s bound = %v, want %v", tt.ground, name, bound, want)
			}
		}
	}
}
