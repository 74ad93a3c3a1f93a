package nacosclusterrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"
	"sdchaos/netns"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/nacos"
)

// chain is the three cluster experiments run one after another on one started cluster: what
// three runs alone would spend on three cluster starts (a minute each here) is spent once.
var chain = []string{"member-cut-off", "registry-packet-loss", "member-packet-loss", "quorum-loss"}

// TestClusterFaultsOnOneRealNacosCluster runs the built-in member-cut-off, registry-packet-loss,
// member-packet-loss and quorum-loss one after another on one real three-member Nacos cluster through the command
// (experiments run A B C), which re-executes itself into a private network namespace for the
// packet losses (--net private, the members on 198.18.0.1–3). No check goes outside the band
// Nacos's rules give (Distro: every live member lists and registers, alone or cut off; the
// callers fail nothing while a member fault holds, but the clear policy caller under the quorum
// loss, which is not judged; the packet loss as the rules time it); every member the rules ask
// about was probed; the cut and the drop took effect (checkCutHeld, checkDropHeld); recheck
// judges the saved history the same; and no JVM or temp dir is left.
func TestClusterFaultsOnOneRealNacosCluster(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos cluster and Java clients")
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace here: %v", err)
	}
	defer machinelock.Take(t)()
	name := strings.Join(chain, "-then-")
	dir, tmp := t.TempDir(), t.TempDir()
	var out, errw bytes.Buffer
	args := append(append([]string{"run"}, chain...), "--registry", "nacos", "--quiet", "--port-base", "19400", "--retry-invalid", "0",
		"--out", dir, "--format", "json")
	cmd := exec.Command(cmdrun.Exe, args...)
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
	// the probe checks of each role: 2 probes × 2 ops × the members asked in it; member-cut-off
	// asks the cut-off member and the two others, quorum-loss the survivor
	cutOff, survivor, majority := 0, 0, 0
	for _, c := range res.Checks {
		cutOff += strings.Count(c.Name, " (cut-off) at ")
		survivor += strings.Count(c.Name, " (survivor) at ")
		majority += strings.Count(c.Name, " (majority) at ")
	}
	if cutOff != 4 || survivor != 4 || majority != 8 {
		t.Errorf("probe checks: %d of the cut-off role, %d of the survivor, %d of the majority, want 4, 4 and 8: %s", cutOff, survivor, majority, scentest.Names(&res))
	}
	h := readHistory(t, filepath.Join(dir, name+".history.jsonl.gz"))
	if h != nil {
		checkCutHeld(t, h)
		checkDropHeld(t, h)
	}
	if b, err := exec.Command(cmdrun.Exe, "recheck", dir).CombinedOutput(); err != nil {
		t.Errorf("recheck: %v\n%s", err, b)
	}
	cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(pid) })
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
}

// readHistory reads a saved history and its Nacos record (nil, with the test failed, when it
// cannot).
func readHistory(t *testing.T, file string) *savedRun {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer f.Close()
	_, h, err := history.ReadHistory(f)
	if err != nil {
		t.Error(err)
		return nil
	}
	var rec nacos.Record
	if err := json.Unmarshal(h.Data, &rec); err != nil {
		t.Errorf("the history's Nacos record: %v", err)
		return nil
	}
	return &savedRun{h: h, rec: rec}
}

// savedRun is a run's saved history and the Nacos record in it.
type savedRun struct {
	h   *history.History
	rec nacos.Record
}

// checkDropHeld checks, from the saved history, that registry-packet-loss's drop was injected on
// every member and healed without error (and member-packet-loss's on one member was made and
// healed), that the world's reading of the first member's list (the harness's own,
// from the member's address) was answered while it held, and logs each member's removals from
// the drop until the next fault.
func checkDropHeld(t *testing.T, run *savedRun) {
	t.Helper()
	h, rec := run.h, run.rec
	var from, to = -1.0, -1.0
	memberDrop := 0
	for _, e := range h.Events {
		if e.Kind != history.PacketDropClients {
			continue
		}
		if len(e.Targets) == 1 { // member-packet-loss's drop, on one member
			memberDrop++
			continue
		}
		if e.Err != "" {
			t.Errorf("%s of the drop failed: %s", e.Phase, e.Err)
		}
		switch e.Phase {
		case history.Inject:
			from = e.At.Seconds()
			if len(e.Targets) != 3 {
				t.Errorf("the drop acted on %v, want the three members", e.Targets)
			}
		case history.Heal:
			to = e.At.Seconds()
		}
	}
	if memberDrop != 2 {
		t.Errorf("member-packet-loss's drop on one member: %d events, want its inject and its heal", memberDrop)
	}
	if from < 0 || to < 0 {
		t.Errorf("no inject and heal of the drop among the events %+v", h.Events)
		return
	}
	answered := 0
	for _, op := range h.Ops {
		if op.Kind == history.OpListed && op.Outcome == history.OK && op.Scheduled.Seconds() >= from && op.Scheduled.Seconds() < to {
			answered++
		}
	}
	if answered == 0 {
		t.Errorf("no reading of the members' list was answered during the drop (%.1f–%.1f s): the harness's own reads were cut", from, to)
	}
	for _, m := range rec.Members {
		for _, e := range m.Log {
			if e.Kind == nacos.Disconnect && e.At.Seconds() >= from && e.At.Seconds() < to+nextFaultAfterDrop {
				t.Logf("%s removed client %s at %.2f s (drop %.1f–%.1f s)", m.Name, e.Detail, e.At.Seconds(), from, to)
			}
		}
	}
}

// nextFaultAfterDrop is how long after the drop's heal the chain's next fault begins
// (registry-packet-loss heals at 21 s of its 40 s).
const nextFaultAfterDrop = 19.0

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
func checkCutHeld(t *testing.T, run *savedRun) {
	t.Helper()
	h, rec := run.h, run.rec
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
			if m.Name == cut && e.Kind == nacos.Disconnect && e.At >= from && e.At < to {
				gone[e.Detail] = e.At
			}
		}
	}
	if len(gone) == 0 {
		t.Errorf("%s logged no client's removal while it was cut off (the members probe's clients close there)", cut)
	}
	for _, m := range rec.Members {
		for _, e := range m.Log {
			if _, own := gone[e.Detail]; m.Name != cut && own && e.Kind == nacos.Disconnect && e.At < to {
				t.Errorf("%s removed %s's client %s at %s, before the heal at %s: the cut did not hold", m.Name, cut, e.Detail, e.At, to)
			}
		}
	}
	t.Logf("%s's own clients removed while cut off: %v; the heal at %s", cut, gone, to)
}
