package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"sdchaos/netns"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// TestPrivateNetRunsThePacketCut runs minority-partition with --net private
// --cut packets from the command line: the command re-executes itself in a
// private user + network namespace, the member is cut off by dropping its
// packets, the verdict and exit code come back from the namespace, and
// nothing is left running.
func TestPrivateNetRunsThePacketCut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real etcd processes in a private network namespace, about 15 s")
	}
	defer scentest.LockMachine(t)() // one real-etcd test at a time, machine-wide (a starved run measures the machine)
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace here: %v", err)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "minority-partition", "--net", "private", "--cut", "packets", "--quiet", "--format", "json",
		"--port-base", strconv.Itoa(10700))
	cmd.Env = append(os.Environ(), envRunMain+"=1") // the test binary runs the command, in and out of the namespace
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitReproduced {
		t.Fatalf("exit code %d, want %d\n%s", code, exitReproduced, errb.String())
	}
	var r struct {
		Verdict report.Verdict `json:"verdict"`
		Marks   []report.Event `json:"marks"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	if r.Verdict != report.Reproduced {
		t.Errorf("verdict %s, want reproduced", r.Verdict)
	}
	cut := false
	for _, e := range r.Marks {
		cut = cut || e.Kind == report.PacketDropPeers
	}
	if !cut {
		t.Errorf("no %s event among %d marks: the cut was not made of packets", report.PacketDropPeers, len(r.Marks))
	}
	eventually(t, "child processes", func() string { return children(cmd.Process.Pid) })
}
