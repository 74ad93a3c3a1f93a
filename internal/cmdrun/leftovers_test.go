package cmdrun

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes this package's test binary a helper that builds (or finds) what it names,
// uses it and waits to be killed (TestHelperUses): "command" (TestMain runs Main) or
// "upstream" (an upstream program, protoc-gen-go, through UpstreamBinary).
const helperEnv = "SDCHAOS_CMDRUN_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "command" {
		Main(m)
	}
	os.Exit(m.Run())
}

// upstreamHelper builds protoc-gen-go at the version of google.golang.org/protobuf in go.mod:
// a small program from a module this one depends on, so its build reads the module cache.
func upstreamHelper() (string, []string, error) {
	const mod = "google.golang.org/protobuf"
	v, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod).Output()
	if err != nil {
		return "", nil, err
	}
	bin, err := UpstreamBinary(mod, strings.TrimSpace(string(v)), mod+"/cmd/protoc-gen-go", "protoc-gen-go")
	return bin, []string{"--version"}, err
}

// TestHelperUses is the helper: it runs what it built, prints its path and waits to be
// SIGKILLed.
func TestHelperUses(t *testing.T) {
	exe, args, err := Exe, []string{"list"}, error(nil)
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("a helper process")
	case "upstream":
		exe, args, err = upstreamHelper()
	}
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", exe, args, err, out)
	}
	os.Stdout.WriteString("using " + exe + "\n")
	time.Sleep(10 * time.Minute)
}

// helper is a started helper test binary.
type helper struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
}

// startHelper starts this test binary as a helper of mode with cache as its build cache and
// tmp as its TMPDIR.
func startHelper(t *testing.T, mode, cache, tmp string) helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUses$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "SDCHAOS_TEST_CACHE="+cache, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return helper{cmd, bufio.NewScanner(out)}
}

// killed SIGKILLs h and checks that nothing of it is left: no process it started (each go
// command carries its pid), nothing in its temp dir.
func (h helper) killed(t *testing.T, tmp string) {
	t.Helper()
	pid := h.cmd.Process.Pid
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	t0 := time.Now()
	Eventually(t, "processes of the killed test binary", func() string { return Children(pid) })
	Eventually(t, "files in the killed test binary's temp dir", func() string { return Leftovers(tmp) })
	t.Logf("killed test binary %d: processes and temp dir checked within %.1f s", pid, time.Since(t0).Seconds())
}

// tmps lists the .tmp entries of dir.
func tmps(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	return m
}

// TestKilledTestBinaryLeavesNothing SIGKILLs a test binary (this one, as a helper) twice:
// while it builds, and while it uses what it built: the command (Main) and an upstream
// program (UpstreamBinary, as etcd's for integration/etcdexternal). Neither kill leaves a
// process or anything in its temp dir; the first leaves .tmp entries in the build cache, which
// the second's build removes; what was built is reused by the next test binary. Starts real
// processes: skipped under -short.
func TestKilledTestBinaryLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs and SIGKILLs test binaries")
	}
	for _, tc := range []struct{ mode, kind string }{
		{"command", "experiments"},
		{"upstream", "google.golang.org_protobuf"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cache, tmp := t.TempDir(), t.TempDir()
			root := filepath.Join(cache, tc.kind)
			killMidBuild(t, tc.mode, cache, tmp, root)
			exe := usedBuild(t, tc.mode, cache, tmp)
			if left := tmps(root); len(left) > 0 {
				t.Errorf("the next build left the killed build's tmps: %v", left)
			}
			before, err := os.Stat(exe)
			if err != nil {
				t.Fatal(err)
			}
			if again := usedBuild(t, tc.mode, cache, tmp); again != exe {
				t.Errorf("the next test binary used %s, want the cached %s", again, exe)
			} else if after, err := os.Stat(exe); err != nil || !os.SameFile(before, after) {
				t.Errorf("the next test binary built %s again (%v)", exe, err)
			}
		})
	}
}

// killMidBuild starts a helper, SIGKILLs it once its build is under way and checks it left
// nothing but the build's .tmp entries in root.
func killMidBuild(t *testing.T, mode, cache, tmp, root string) {
	t.Helper()
	h := startHelper(t, mode, cache, tmp)
	deadline := time.Now().Add(2 * time.Minute)
	for len(tmps(root)) < 2 { // work.tmp, then <key>.tmp when the build starts
		if time.Now().After(deadline) {
			t.Fatalf("no build under way in %s: %s", root, Leftovers(root))
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	h.killed(t, tmp)
	if len(tmps(root)) < 2 {
		t.Fatalf("the build ended before the kill (%s): this run proves nothing", Leftovers(root))
	}
}

// usedBuild starts a helper, waits until it uses what it built, kills it, checks it left
// nothing and returns the path of what it used.
func usedBuild(t *testing.T, mode, cache, tmp string) string {
	t.Helper()
	h := startHelper(t, mode, cache, tmp)
	exe := ""
	for h.lines.Scan() {
		if p, ok := strings.CutPrefix(h.lines.Text(), "using "); ok {
			exe = p
			break
		}
	}
	if exe == "" {
		t.Fatal("the helper ended before it used its build")
	}
	h.killed(t, tmp)
	return exe
}
