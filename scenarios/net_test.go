package scenarios

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"sdchaos/childproc"
	"sdchaos/netns"
	"sdchaos/rig"
)

// TestMain dispatches the hidden sub-commands: --net private probes the
// namespace (netns.Supported re-executes the test binary).
func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// TestNetFlag: --net takes loopback or private, is no experiment
// parameter, is not offered where the spec leaves it out, and a private
// run is refused outside its namespace with the reason.
func TestNetFlag(t *testing.T) {
	c, _, params, err := Parse(fakeSpec, nil)
	if err != nil || c.Net != rig.Loopback {
		t.Fatalf("default: net %q, %v; want loopback", c.Net, err)
	}
	if _, ok := params["net"]; ok {
		t.Errorf("params %v hold net; it is not an experiment parameter", params)
	}
	if c, _, _, err := Parse(fakeSpec, []string{"--net", "loopback"}); err != nil || c.Net != rig.Loopback {
		t.Errorf("--net loopback: %v, %v", c, err)
	}
	wantUsage(t, []string{"--net", "wifi"}, fakeSpec, `invalid value "wifi" for flag -net: want loopback or private`)
	without := fakeSpec
	without.Ground = LoopbackServers
	wantUsage(t, []string{"--net", "private"}, without, "flag provided but not defined: -net")
	if netns.Inside() {
		t.Skip("inside a private namespace: --net private is allowed here")
	}
	wantUsage(t, []string{"--net", "private"}, fakeSpec, "--net private: ")
}

func wantUsage(t *testing.T, args []string, spec Spec, want string) {
	t.Helper()
	_, _, _, err := Parse(spec, args)
	if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: err = %v, want a usage error containing %q", strings.Join(args, " "), err, want)
	}
}

// TestSavedArgsKeepThePrivateNet: a run made in the private namespace saves
// --net=private with its parameters, and ParseSaved rebuilds its config
// outside the namespace (to judge or draw it again), where Parse refuses.
func TestSavedArgsKeepThePrivateNet(t *testing.T) {
	c := DefaultCommon()
	c.Net = rig.Private
	args := SavedArgs(&c, map[string]any{"b": 2, "a": "x"})
	if want := []string{"--a=x", "--b=2", "--net=private"}; !slices.Equal(args, want) {
		t.Errorf("SavedArgs = %q, want %q", args, want)
	}
	if got := SavedArgs(nil, map[string]any{"a": 1}); !slices.Equal(got, []string{"--a=1"}) {
		t.Errorf("SavedArgs without a private net = %q", got)
	}
	saved, _, _, err := ParseSaved(fakeSpec, []string{"--net=private"})
	if err != nil || saved.Net != rig.Private || !saved.Saved {
		t.Errorf("ParseSaved(--net=private) = %+v, %v; want a private, saved config", saved, err)
	}
	if netns.Inside() {
		return
	}
	if _, _, _, err := Parse(fakeSpec, []string{"--net=private"}); err == nil {
		t.Error("Parse(--net=private) outside the namespace succeeded; only a saved run may")
	}
}
