package nacoscluster_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/internal/cmdrun"
	"sdchaos/nacosreal"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// TestMemberFaultsOnRealNacosCluster runs the built-in quorum-loss and member-cut-off on the
// real three-member Nacos cluster through the command, one after the other: no check goes
// outside the band Nacos's rules give (Distro: every live member lists and registers, alone or
// cut off; the callers fail nothing while the fault holds, but the clear policy caller under a
// quorum loss, which is not judged), every member the rules ask about was probed, recheck judges
// the saved history the same, and no JVM, port or temp dir is left.
func TestMemberFaultsOnRealNacosCluster(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos cluster and Java clients")
	defer scentest.LockMachine(t)()
	for i, tc := range []struct {
		name             string
		cutOff, majority int // the probe checks of each role: 2 probes × 2 ops × the members asked in it
	}{
		{"quorum-loss", 4, 0},
		{"member-cut-off", 4, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := 19400 + 200*i
			dir, tmp := t.TempDir(), t.TempDir()
			var out, errw bytes.Buffer
			cmd := exec.Command(cmdrun.Exe, tc.name, "--registry", "nacos", "--quiet", "--port-base", strconv.Itoa(base), "--retry-invalid", "0",
				"--out", dir, "--format", "json")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			cmd.Stdout, cmd.Stderr = &out, &errw
			err := cmd.Run()
			if cmd.Process == nil {
				t.Fatalf("run: %v", err)
			}
			pid := cmd.Process.Pid
			var res report.Result
			if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
				t.Fatalf("run: %v (%v)\n%s", err, jerr, errw.String())
			}
			t.Logf("verdict %s, wall %.1f s: %s", res.Verdict, res.WallSeconds, strings.Join(res.Conclusion, " "))
			t.Logf("checks: %s", checksOf(&res))
			if res.Verdict == report.Invalid {
				t.Skipf("the run was invalid on this machine: %s", checksOf(&res))
			}
			for _, c := range res.Checks {
				if c.Verdict == report.Outside {
					t.Errorf("check %q outside its band: %s (band %s; %s)", c.Name, c.MeasuredText, c.Band, c.Basis)
				}
			}
			cutOff, majority := 0, 0
			for _, c := range res.Checks {
				cutOff += strings.Count(c.Name, " (cut-off) at ")
				majority += strings.Count(c.Name, " (majority) at ")
			}
			if cutOff != tc.cutOff || majority != tc.majority {
				t.Errorf("probe checks: %d of the cut-off role, %d of the majority, want %d and %d: %s", cutOff, majority, tc.cutOff, tc.majority, scentest.Names(&res))
			}
			if tc.name == "member-cut-off" {
				checkCutHeld(t, filepath.Join(dir, tc.name+".history.jsonl.gz"))
			}
			if b, err := exec.Command(cmdrun.Exe, "recheck", dir).CombinedOutput(); err != nil {
				t.Errorf("recheck: %v\n%s", err, b)
			}
			cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(pid) })
			cmdrun.Eventually(t, "listening ports", func() string { return cmdrun.BusyPorts(base, base+2100) })
			cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
		})
	}
}

// checksOf lists a result's checks and their verdicts, for a failure's message.
func checksOf(res *report.Result) string {
	var b strings.Builder
	for _, c := range res.Checks {
		b.WriteString(c.Name + ": " + c.MeasuredText + " → " + string(c.Verdict) + "; ")
	}
	return b.String()
}

// checkCutHeld checks that the cut took effect, from the members' own logs in the saved
// history: a client the cut member held alone (its disconnect logged there while the cut held:
// the members probe's clients) is removed at the other members only once the cut healed, since
// Distro's sync of the removal (DistroClientDataProcessor.syncToAllServer) cannot cross the cut.
func checkCutHeld(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	_, h, err := history.ReadHistory(f)
	if err != nil {
		t.Error(err)
		return
	}
	var rec nacosreal.Record
	if err := json.Unmarshal(h.Data, &rec); err != nil {
		t.Errorf("the history's Nacos record: %v", err)
		return
	}
	var cut string
	var from, to time.Duration
	for _, e := range h.Events {
		if e.Kind == history.PartitionMember && e.Phase == history.Inject {
			cut, from = e.Targets[0], e.At
		}
		if e.Kind == history.PartitionMember && e.Phase == history.Heal {
			to = e.At
		}
	}
	if cut == "" || to == 0 {
		t.Errorf("no cut and heal among the events %+v", h.Events)
		return
	}
	gone := map[string]time.Duration{} // the cut member's own clients, removed while the cut held
	for _, m := range rec.Members {
		for _, e := range m.Log {
			if m.Name == cut && e.Kind == nacosreal.Disconnect && e.At >= from && e.At < to {
				gone[e.Detail] = e.At
			}
		}
	}
	if len(gone) == 0 {
		t.Errorf("%s logged no client's removal while it was cut off (the members probe's clients close there)", cut)
	}
	for _, m := range rec.Members {
		for _, e := range m.Log {
			if _, own := gone[e.Detail]; m.Name != cut && own && e.Kind == nacosreal.Disconnect && e.At < to {
				t.Errorf("%s removed %s's client %s at %s, before the heal at %s: the cut did not hold", m.Name, cut, e.Detail, e.At, to)
			}
		}
	}
	t.Logf("%s's own clients removed while cut off: %v; the heal at %s", cut, gone, to)
}
