package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalModeRefusals: what the external mode refuses, each in one
// line with exit 2, before anything runs (the unreachable endpoint after a
// 5 s attempt, so it is skipped under -short).
func TestExternalModeRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"actions\": {\n    \"kill\": {\"command\": \"kill {pid}\"}\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	killOnly := filepath.Join(dir, "kill-only.json")
	if err := os.WriteFile(killOnly, []byte(`{"actions": {"kill": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	local := "http://127.0.0.1:11999"
	tests := []struct {
		name  string
		args  []string
		want  string
		short bool
	}{
		{"remote endpoint", []string{"minority", "--endpoints", "http://10.1.2.3:2379"}, `endpoint "http://10.1.2.3:2379" is not on the loopback range; add --allow-remote`, true},
		{"remote member", []string{"minority", "--members", "a=http://db.example.com:2379"}, "not on the loopback range", true},
		{"bad nemesis file", []string{"minority", "--endpoints", local, "--nemesis", bad}, "bad.json:3: action \"kill\": unknown placeholder {pid}", true},
		{"no nemesis", []string{"minority", "--endpoints", local}, `minority injects SIGKILL of two members and their restart, which on an external cluster needs a nemesis with the actions "kill" and "start"`, true},
		{"nemesis lacks an action", []string{"minority-partition", "--endpoints", local, "--nemesis", killOnly}, `needs the nemesis action "isolate"`, true},
		{"nemesis without endpoints", []string{"minority", "--nemesis", killOnly}, "need --endpoints", true},
		{"not an etcd scenario", []string{"eureka-failover", "--endpoints", local}, "flag provided but not defined: -endpoints", true},
		{"unreachable endpoint", []string{"snapshot-at-start", "--endpoints", local, "--port-base", "11900"}, "external target unusable: attaching to " + local, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.short && testing.Short() {
				t.Skip("waits for an endpoint that does not answer")
			}
			var out, errb bytes.Buffer
			code := exitCode(run(context.Background(), tc.args, &out, &errb), &errb)
			lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
			last := lines[len(lines)-1]
			if code != 2 || !strings.HasPrefix(last, "experiments: ") || !strings.Contains(last, tc.want) {
				t.Errorf("exit %d, last stderr line %q; want 2 and %q", code, last, tc.want)
			}
		})
	}
}
