package nemesis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sdchaos/cluster"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "n.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadRejectsBadFilesWithTheirLine(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"bad JSON", "{\n  \"actions\": {\n    \"kill\": {\"command\": \"x\"},,\n  }\n}", "n.json:3:"},
		{"unknown action", "{\n  \"actions\": {\n    \"kil\": {\"command\": \"x\"}\n  }\n}", `n.json:3: unknown action "kil"`},
		{"unknown placeholder", "{\n  \"actions\": {\n    \"kill\": {\n      \"command\": \"kill {pid}\"\n    }\n  }\n}", "n.json:4: action \"kill\": unknown placeholder {pid}"},
		{"unknown field", "{\n  \"acts\": {}\n}", `unknown field "acts"`},
		{"no command", "{\"actions\": {\"kill\": {}}}", `action "kill" has no command`},
		{"bad timeout", "{\"timeout\": \"soon\", \"actions\": {\"kill\": {\"command\": \"x\"}}}", `duration "soon"`},
		{"no actions", "{}", "no actions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(write(t, tc.body))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalid containing %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

var members = []cluster.Member{
	{Name: "n1", ID: "8e9e05c52164694d", ClientURL: "http://127.0.0.1:2379", PeerURL: "http://127.0.0.1:2380"},
	{Name: "n2", ID: "91bc3c398fb3c146", ClientURL: "http://10.0.0.2:2379", PeerURL: "http://10.0.0.2:2380"},
}

func TestCheckMembers(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"fits", `{"actions": {"kill": {"command": "ssh {client_host} kill {name}"}}}`, ""},
		{"data dir given", `{"members": {"n1": {"data_dir": "/d1"}, "n2": {"data_dir": "/d2"}}, "actions": {"start": {"command": "run {data_dir}"}}}`, ""},
		{"data dir missing", `{"members": {"n1": {"data_dir": "/d1"}}, "actions": {"start": {"command": "run {data_dir}"}}}`, "no value for {data_dir}"},
		{"unknown member", `{"members": {"n9": {"data_dir": "/d"}}, "actions": {"kill": {"command": "x"}}}`, `member "n9" is not in the cluster`},
		{"per-member unknown", `{"actions": {"kill": {"per_member": {"n1": "a", "n3": "b"}}}}`, `member "n3" is not in the cluster`},
		{"per-member missing one", `{"actions": {"kill": {"per_member": {"n1": "a"}}}}`, "no command for member n2"},
		{"unsafe value", `{"members": {"n1": {"data_dir": "/d; rm -rf /"}, "n2": {"data_dir": "/d"}}, "actions": {"start": {"command": "run {data_dir}"}}}`, "characters sh would interpret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load(write(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			err = f.CheckMembers(members)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	f, err := Load(write(t, `{"actions": {"isolate": {"command": "x {name} {member_id} {client_host}:{client_port} {peer_host}:{peer_port} {direction}"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.render(cluster.Request{Action: cluster.ActIsolate, Member: members[1], OneWay: true})
	want := "x n2 91bc3c398fb3c146 10.0.0.2:2379 10.0.0.2:2380 one-way"
	if err != nil || got != want {
		t.Errorf("render = %q, %v; want %q", got, err, want)
	}
}

// TestHealsRunOnceWhateverHappened: a kill that fails still leaves its
// start pending; HealAll runs it; a second HealAll runs nothing.
func TestHealsRunOnceWhateverHappened(t *testing.T) {
	dir := t.TempDir()
	f, err := Load(write(t, `{"actions": {"kill": {"command": "echo kill {name} >> `+dir+`/log; exit 3"}, "start": {"command": "echo start {name} >> `+dir+`/log"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var runs []Run
	n := New(f)
	n.Observe = func(r Run) { runs = append(runs, r) }
	if _, err := n.Do(context.Background(), cluster.Request{Action: cluster.ActKill, Member: members[0]}); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("failing kill: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as on Ctrl-C: heals run anyway
	if err := n.HealAll(ctx); err != nil {
		t.Fatal(err)
	}
	if err := n.HealAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if string(log) != "kill n1\nstart n1\n" {
		t.Errorf("commands run: %q", log)
	}
	if len(runs) != 2 || runs[0].Err == "" || runs[1].Err != "" {
		t.Errorf("observed runs: %+v", runs)
	}
}

// TestTimeoutKillsTheCommand: a command still running at its timeout is
// killed: Do returns the timeout's error before the command (sleep 10)
// would have ended by itself, which it must not wait for (nor for a child
// holding its output open).
func TestTimeoutKillsTheCommand(t *testing.T) {
	const runs = 10 * time.Second
	f, err := Load(write(t, fmt.Sprintf(`{"actions": {"pause": {"command": "sleep %d", "timeout": "200ms"}}}`, int(runs.Seconds()))))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = New(f).Do(context.Background(), cluster.Request{Action: cluster.ActPause, Member: members[0]})
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "timed out after 200ms") || took >= runs {
		t.Errorf("error %v after %s (want the timeout's, before the command's own %s)", err, took, runs)
	}
}

func TestMissingAction(t *testing.T) {
	f, err := Load(write(t, `{"actions": {"kill": {"command": "true"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(f).Do(context.Background(), cluster.Request{Action: cluster.ActIsolate, Member: members[0]}); !errors.Is(err, cluster.ErrNoNemesis) {
		t.Errorf("error %v, want ErrNoNemesis", err)
	}
}

// TestShippedFilesParse loads every example nemesis file and fills every
// template for a 3-member cluster (with the data dirs a file gives).
func TestShippedFilesParse(t *testing.T) {
	paths, _ := filepath.Glob("../../../examples/nemesis/*.json")
	if len(paths) < 4 {
		t.Fatalf("found %d example nemesis files, want at least 4", len(paths))
	}
	ms := []cluster.Member{members[0], members[1], {Name: "n3", ID: "fd422379fda50e48", ClientURL: "http://127.0.0.1:2381", PeerURL: "http://127.0.0.1:2382"}}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			ms := ms
			if len(f.Members) > 0 { // a file naming its members: use its names
				ms = nil
				for name := range f.Members {
					ms = append(ms, cluster.Member{Name: name, ID: "1", ClientURL: "http://10.0.0.1:2379", PeerURL: "http://10.0.0.1:2380"})
				}
			}
			if err := f.CheckMembers(ms); err != nil {
				t.Error(err)
			}
			if f.Description == "" {
				t.Error("no description of what the file assumes")
			}
		})
	}
}
