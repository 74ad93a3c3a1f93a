package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"

	"sdchaos/history"
	"sdchaos/netns"
	"sdchaos/report"
)

// TestPrivateNetRunsThePacketCut runs minority-partition with --net private
// --cut packets from the command line: the command re-executes itself in a
// private user + network namespace, the member is cut off by dropping its
// packets, the verdict and exit code come back from the namespace, and
// nothing is left running.
func TestPrivateNetRunsThePacketCut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real etcd processes in a private network namespace, about 40 s")
	}
	defer machinelock.Take(t)() // one real-etcd test at a time, machine-wide (a starved run measures the machine)
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace here: %v", err)
	}
	tests := []struct {
		args []string
		cut  history.EventKind
	}{
		{[]string{"minority-partition", "--cut", "packets"}, history.PacketDropPeers},
		// The storm's link loss drops the registrants' packets: no proxy in the way.
		{[]string{"reregistration-storm", "--instances", "200", "--ttl", "3s", "--renew", "1s", "--backoff-base", "2s"}, history.PacketDropClients},
	}
	for _, tc := range tests {
		t.Run(tc.args[0], func(t *testing.T) { runPrivate(t, tc.args, tc.cut) })
	}
}

// runPrivate runs args with --net private and requires it reproduced (or
// differing from the article with its causes), its
// cut made of packets (an event of kind cut), and no child left behind. A
// run that cannot judge (invalid: a gate failed, as when the machine
// starved the harness) is retried by the command itself; if every try was
// invalid (exit code exitInvalid) the test is skipped saying why, as
// scentest.RunReproduced does — never passed or failed on it.
func runPrivate(t *testing.T, args []string, cut history.EventKind) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append(args, "--net", "private", "--quiet", "--format", "json", "--port-base", strconv.Itoa(10700))...)
	cmd.Env = append(os.Environ(), envRunMain+"=1") // the test binary runs the command, in and out of the namespace
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	switch code := cmd.ProcessState.ExitCode(); code {
	case exitReproduced:
	case exitInvalid:
		cmdrun.Eventually(t, "child processes", func() string { return cmdrun.Children(cmd.Process.Pid) })
		t.Skipf("every run was invalid on this machine:\n%s", errb.String())
	default:
		t.Fatalf("exit code %d, want %d\n%s%s", code, exitReproduced, errb.String(), unreproduced(out.Bytes()))
	}
	var r struct {
		Verdict report.Verdict  `json:"verdict"`
		Marks   []history.Event `json:"marks"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	// A check may differ from the article with its cause (a local read's
	// latency is the host's, say): exit code 0 either way.
	if r.Verdict != report.Reproduced && r.Verdict != report.Differs {
		t.Errorf("verdict %s, want reproduced or differs", r.Verdict)
	}
	found := false
	for _, e := range r.Marks {
		found = found || e.Kind == cut
	}
	if !found {
		t.Errorf("no %s event among %d marks: the cut was not made of packets", cut, len(r.Marks))
	}
	cmdrun.Eventually(t, "child processes", func() string { return cmdrun.Children(cmd.Process.Pid) })
}

// TestAsksPrivate: a command asks for the private namespace with --net private, or when it runs
// a scenario that drops packets at its defaults (registry-packet-loss, directly or swept, or an
// experiment `run` names, alone or chained) and names no other network; `all` goes there only for a run it plans with --net private.
func TestAsksPrivate(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"cache-on-failure"}, false},
		{[]string{"cache-on-failure", "--net", "private"}, true},
		{[]string{"registry-packet-loss"}, true},
		{[]string{"member-packet-loss", "--seed", "2"}, true},
		{[]string{"registry-packet-loss", "--net", "loopback"}, false},
		{[]string{"registry-packet-loss", "--net=loopback"}, false},
		{[]string{"sweep", "registry-packet-loss", "--param", "fault-for", "18s,25s"}, true},
		{[]string{"registry-unreachable"}, false},
		{[]string{"run", "member-cut-off", "registry-packet-loss", "--registry", "nacos"}, true},
		{[]string{"run", "member-cut-off", "registry-packet-loss", "--net", "loopback"}, false},
		{[]string{"run", "member-cut-off", "quorum-loss"}, false},
		{[]string{"run", "no-such-experiment"}, false},
		{[]string{"all"}, false},
		{[]string{"all", "--only", "registry-packet-loss"}, true},
	}
	for _, tt := range tests {
		if got := asksPrivate(tt.args); got != tt.want {
			t.Errorf("asksPrivate(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// unreproduced lists the checks of a JSON report that neither reproduced
// nor differed with a cause, one line each, so that a failed run says which
// check went outside and what it measured.
func unreproduced(js []byte) string {
	var r struct {
		Checks []report.Check `json:"checks"`
	}
	if err := json.Unmarshal(js, &r); err != nil {
		return fmt.Sprintf("(no report: %v)", err)
	}
	var b strings.Builder
	for _, c := range r.Checks {
		if c.Verdict != report.Reproduced && c.Verdict != report.Differs {
			fmt.Fprintf(&b, "%s: %s: measured %s, band %s (%s)\n", c.Verdict, c.Name, c.MeasuredText, c.Band, c.Basis)
		}
	}
	return b.String()
}
