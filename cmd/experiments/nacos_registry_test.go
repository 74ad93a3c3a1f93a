package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/jvm"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// TestNacosRegistryRefusesWhatItCannotMakeInOneLine: the registry-neutral experiments the
// Nacos world cannot make end with one line naming what, and exit 2, before anything starts.
func TestNacosRegistryRefusesWhatItCannotMakeInOneLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := "name: x\nsummary: a test\nduration: 20s\ninstances:\n  count: 2\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"rejoin-jittered", "--registry", "nacos"}, "instances.spread"},
		{[]string{"run", write("kill.yaml", base+"timeline:\n  - at: 2s\n    for: 5s\n    fault: registry-unreachable\n    how: kill\n"), "--registry", "nacos"}, "how: kill"},
		{[]string{"run", write("ttl.yaml", "name: x\nsummary: a test\nduration: 20s\ninstances:\n  count: 2\n  ttl: 10s\ntimeline:\n  - at: 2s\n    fault: registry-unreachable\n"), "--registry", "nacos"}, "instances.ttl"},
		{[]string{"run", write("quorum.yaml", base+"timeline:\n  - at: 2s\n    for: 5s\n    fault: quorum-loss\n"), "--registry", "nacos"}, "no quorum"},
		{[]string{"run", write("client.yaml", base+"callers:\n  - name: mine\n    kind: client\n    client: spring\ntimeline:\n  - at: 2s\n    fault: registry-unreachable\n"), "--registry", "nacos"}, "named after its client"},
	}
	for _, tc := range tests {
		var out, errw bytes.Buffer
		code := exitCode(run(context.Background(), tc.args, &out, &errw), &errw)
		msg := strings.TrimSpace(errw.String())
		if code != exitError || !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, msg, exitError, tc.want)
		}
	}
}

// shortNacosUnreachable is registry-unreachable shortened for a test: 3 instances, the two
// policy callers and nacos-sdk-go (no JVM client: the server is the one JVM), every link
// blackholed for 8 s.
const shortNacosUnreachable = `name: nacos-unreachable-short
summary: registry-unreachable shortened for a test
duration: 14s
instances:
  count: 3
callers:
  - name: keep
    kind: policy
    policy: keep
  - name: clear
    kind: policy
    policy: clear
  - name: go-sdk
    kind: client
    client: go-sdk
timeline:
  - at: 2s
    for: 8s
    fault: registry-unreachable
    how: blackhole
`

// TestRegistryUnreachableOnRealNacos runs the registry-neutral experiment, shortened, on a real
// Nacos server through the command: every check Nacos's rules call for holds (keep and
// nacos-sdk-go fail nothing, clear fails from its first refresh past the cut until the heal,
// the server removes no instance in 8 s), and recheck judges the saved history again.
func TestRegistryUnreachableOnRealNacos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real Nacos server (a JVM)")
	}
	if _, err := jvm.Java(); err != nil {
		t.Skip(err)
	}
	if _, err := jvm.Maven(); err != nil {
		t.Skip(err)
	}
	defer scentest.LockMachine(t)()
	dir := t.TempDir()
	file := filepath.Join(dir, "short.yaml")
	if err := os.WriteFile(file, []byte(shortNacosUnreachable), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	err := run(context.Background(), []string{"run", file, "--registry", "nacos", "--quiet", "--port-base", "19150", "--out", dir, "--format", "json"}, &out, &errw)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errw.String())
	}
	var res report.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("the JSON result: %v\n%.400s", err, out.String())
	}
	if res.Verdict == report.Invalid {
		t.Skipf("the run was invalid on this machine (judged nothing): %s", checksOf(&res))
	}
	if !res.Reproduced {
		t.Errorf("verdict %s: %s", res.Verdict, checksOf(&res))
	}
	for _, name := range []string{"keep", "go-sdk"} {
		if s, ok := res.Series[name]; !ok || sum(s.Fail) != 0 || sum(s.OK) == 0 {
			t.Errorf("%s: want calls, none failed: %+v", name, s)
		}
	}
	out.Reset()
	if err := recheck([]string{dir}, &out); err != nil {
		t.Errorf("recheck: %v\n%s", err, out.String())
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

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
