package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{[]string{"run", write("kill.yaml", base+"timeline:\n  - at: 2s\n    for: 5s\n    fault: registry-unreachable\n    how: kill\n"), "--registry", "nacos"}, "how: kill"},
		{[]string{"run", write("ttl.yaml", "name: x\nsummary: a test\nduration: 20s\ninstances:\n  count: 2\n  ttl: 10s\ntimeline:\n  - at: 2s\n    fault: registry-unreachable\n"), "--registry", "nacos"}, "instances.ttl"},
		{[]string{"run", write("leader.yaml", base+"timeline:\n  - at: 2s\n    for: 5s\n    fault: cut-off-member\n    which: leader\n"), "--registry", "nacos"}, "no leader"},
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
