package nacospackets_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sdchaos/history"
	"sdchaos/internal/cmdrun"
	"sdchaos/nacosreal"
	"sdchaos/netns"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// TestPacketLossOnRealNacosCluster runs the built-in registry-packet-loss (every packet between
// the clients and the three members dropped for 18 s) through the command, which re-executes
// itself into a private network namespace (--net private, the members on 198.18.0.1–3): the drop
// is injected and healed without error, no check goes outside the band Nacos's rules give, the
// world's reading of the members' list was answered throughout the drop (the harness's own reads
// pass), recheck judges the saved history the same, and no JVM or temp dir is left.
func TestPacketLossOnRealNacosCluster(t *testing.T) {
	cmdrun.NeedJVM(t, "a real Nacos cluster and Java clients")
	if err := netns.Supported(); err != nil {
		t.Skipf("no private network namespace here: %v", err)
	}
	defer scentest.LockMachine(t)()
	const name, base = "registry-packet-loss", 19800
	dir, tmp := t.TempDir(), t.TempDir()
	var out, errw bytes.Buffer
	cmd := exec.Command(cmdrun.Exe, name, "--registry", "nacos", "--net", "private", "--quiet", "--port-base", strconv.Itoa(base),
		"--retry-invalid", "0", "--out", dir, "--format", "json")
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
	checkDropHeld(t, filepath.Join(dir, name+".history.jsonl.gz"))
	if b, err := exec.Command(cmdrun.Exe, "recheck", dir).CombinedOutput(); err != nil {
		t.Errorf("recheck: %v\n%s", err, b)
	}
	cmdrun.Eventually(t, "child processes (JVMs)", func() string { return cmdrun.Children(pid) })
	cmdrun.Eventually(t, "temp dirs", func() string { return cmdrun.Leftovers(tmp) })
}

// checkDropHeld checks, from the saved history, that the drop was injected on every member and
// healed without error, that the world's reading of the first member's list (the harness's own,
// from the member's address) was answered while it held, and logs each member's removals.
func checkDropHeld(t *testing.T, file string) {
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
	var from, to = -1.0, -1.0
	for _, e := range h.Events {
		if e.Kind != history.PacketDropClients {
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
	var rec nacosreal.Record
	if err := json.Unmarshal(h.Data, &rec); err != nil {
		t.Errorf("the history's Nacos record: %v", err)
		return
	}
	for _, m := range rec.Members {
		for _, e := range m.Log {
			if e.Kind == nacosreal.Disconnect && e.At.Seconds() >= from {
				t.Logf("%s removed client %s at %.2f s (drop %.1f–%.1f s)", m.Name, e.Detail, e.At.Seconds(), from, to)
			}
		}
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
