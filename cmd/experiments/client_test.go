package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sdchaos/internal/cmdrun"
	"sdchaos/internal/machinelock"
)

// TestUserClient runs cache-on-failure with the example client of
// examples/discovery-client, well-behaved and broken on purpose, and checks
// the report and that nothing is left running.
func TestUserClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real etcd processes and a client program")
	}
	defer machinelock.Take(t)() // one real-etcd test at a time, machine-wide (a starved run measures the machine)
	bin := filepath.Join(t.TempDir(), "discovery-client")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/discovery-client").CombinedOutput(); err != nil {
		t.Fatalf("building the example client: %v\n%s", err, out)
	}
	tests := []struct {
		name     string
		client   string
		code     int
		wantGate string // a gate that must fail ("" = none)
	}{
		{"well-behaved", "exec:" + bin, exitReproduced, ""},
		{"malformed lines", "exec:" + bin + " --bad-lines 50", exitInvalid, "the client's lines parse"},
		{"exits early", "exec:" + bin + " --exit-after 2s", exitInvalid, "the client ran until the end"},
		{"never prints, never exits", "exec:sleep 1000", exitInvalid, "the client printed its calls"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"cache-on-failure", "--duration", "4s", "--outage-at", "1s", "--real-clients=false", "--retry-invalid", "0",
				"--quiet", "--port-base", strconv.Itoa(10500 + 30*i), "--format", "json", "--out", dir, "--client", tc.client}
			if tc.code == exitReproduced { // a run the loaded machine starved is invalid: it is retried, and skips the case if it stays so
				args[slices.Index(args, "--retry-invalid")+1] = "2"
			}
			var out, errb bytes.Buffer
			code := exitCode(run(context.Background(), args, &out, &errb), &errb)
			if code == exitInvalid && tc.code == exitReproduced {
				t.Skipf("three invalid runs on this machine (a gate failed: the machine starved the run)\n%s", errb.String())
			}
			if code != tc.code {
				t.Fatalf("exit code %d, want %d\n%s", code, tc.code, errb.String())
			}
			checkGate(t, out.Bytes(), tc.wantGate)
			cmdrun.Eventually(t, "child processes", func() string { return cmdrun.Children(os.Getpid()) })
		})
	}
}

func checkGate(t *testing.T, js []byte, want string) {
	t.Helper()
	var r struct {
		Gates []struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
		} `json:"gates"`
		Series map[string]any `json:"series"`
	}
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatalf("report: %v", err)
	}
	if _, ok := r.Series["client"]; !ok {
		t.Error("the report has no row for the client")
	}
	for _, g := range r.Gates {
		if !g.OK && g.Name != want {
			t.Errorf("gate %q failed", g.Name)
		}
		if g.Name == want && g.OK {
			t.Errorf("gate %q held for a broken client", g.Name)
		}
	}
	if want != "" && !strings.Contains(string(js), want) {
		t.Errorf("no gate %q in the report", want)
	}
}
