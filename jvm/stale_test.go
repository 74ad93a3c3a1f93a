package jvm

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// staleLayout makes a cache root holding a built piece and, beside it, every tmp a killed
// writer can leave; it returns the root, the piece's extracted app.jar and which paths a sweep
// must keep (true) or remove (false).
func staleLayout(t *testing.T) (string, string, map[string]bool) {
	t.Helper()
	root := t.TempDir()
	piece := filepath.Join(root, "eureka-server-abc")
	app := filepath.Join(piece, extractDir, JarName)
	jar := filepath.Join(piece, "target", JarName)
	deadPid := pidMax(t) + 1 // no process can have it
	paths := map[string]bool{
		jar:                              true,
		app:                              true,
		piece + ".build.log":             true,
		filepath.Join(piece, "x.jsa"):    true,
		app[:len(app)-4] + "-k.jsa":      true,
		piece + ".tmp/pom.xml":           false, // a Maven build
		filepath.Join(root, "nacos.tmp"): false,
		filepath.Join(piece, "extracted.tmp", JarName):                             false, // an extract
		filepath.Join(piece, extractDir, "app-k.jsa.tmp"):                          false, // a training
		jar + inventorySuffix + "." + strconv.Itoa(deadPid) + ".tmp":               false, // its writer is gone
		jar + inventorySuffix + "." + strconv.Itoa(os.Getpid()) + ".tmp":           true,  // its writer lives
		filepath.Join(piece, "target", "other.json."+strconv.Itoa(deadPid)+".tmp"): true,  // not ours
	}
	for p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, app, paths
}

func pidMax(t *testing.T) int {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	n, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil {
		t.Fatalf("pid_max: %v %v", err, perr)
	}
	return n
}

// checkSwept fails for each path of want whose existence differs from want's.
func checkSwept(t *testing.T, want map[string]bool) {
	t.Helper()
	for p, kept := range want {
		if exists(p) != kept {
			t.Errorf("%s: exists %v, want %v", p, exists(p), kept)
		}
	}
}

// TestLockCacheSweepsStaleTmps: taking the build lock removes every tmp a holder of the lock
// writes and the inventory tmps of gone pids, and keeps built pieces, logs, archives, a live
// writer's inventory tmp and files that are not ours.
func TestLockCacheSweepsStaleTmps(t *testing.T) {
	_, app, want := staleLayout(t)
	unlock, err := LockArchive(app)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	checkSwept(t, want)
}

// TestSweepIfIdle: a use that takes no lock sweeps only while no process holds the lock.
func TestSweepIfIdle(t *testing.T) {
	root, _, want := staleLayout(t)
	f, err := os.OpenFile(filepath.Join(root, "build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	sweepIfIdle(root) // a holder may be writing them
	held := map[string]bool{}
	for p, kept := range want {
		held[p] = kept || !strings.Contains(p, inventorySuffix)
	}
	for p := range held {
		if !exists(p) {
			t.Errorf("%s removed while the lock was held", p)
		}
	}
	f.Close()
	sweepIfIdle(root)
	checkSwept(t, want)
}

const helperEnv = "SDCHAOS_JVM_STALE_HELPER"

// TestHelperTrainingKilled is the process TestKilledTrainingLeavesNoTmp SIGKILLs: it takes the
// archive's lock as a training does, writes <archive>.tmp, says so and waits.
func TestHelperTrainingKilled(t *testing.T) {
	app := os.Getenv(helperEnv)
	if app == "" {
		t.Skip("a helper process")
	}
	if _, err := LockArchive(app); err != nil {
		t.Fatal(err)
	}
	archive, _, err := SharedArchive(app)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archive+".tmp", []byte("half an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("training\n")
	time.Sleep(10 * time.Minute)
}

// TestKilledTrainingLeavesNoTmp: a process SIGKILLed while it writes an AppCDS archive under
// the build lock leaves <archive>.tmp; the next one that takes the lock (the next training)
// removes it. Starts a real process: skipped under -short; needs java (the archive's name).
func TestKilledTrainingLeavesNoTmp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process and SIGKILLs it")
	}
	if _, err := Java(); err != nil {
		t.Skip(err)
	}
	root, app, _ := staleLayout(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTrainingKilled$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+app, "SDCHAOS_JVM_CACHE="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "training" {
	}
	archive, _, err := SharedArchive(app)
	if err != nil {
		t.Fatal(err)
	}
	if !exists(archive + ".tmp") {
		t.Fatalf("the helper wrote no %s.tmp", archive)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !exists(archive + ".tmp") {
		t.Fatal("the tmp vanished by itself: this test proves nothing")
	}
	unlock, err := LockArchive(app)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if exists(archive + ".tmp") {
		t.Errorf("%s.tmp left after the next training took the lock", archive)
	}
}

// TestLogTail: a failed build's error carries the log's last line with
// text, without terminal colours.
func TestLogTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.build.log")
	if err := os.WriteFile(p, []byte("\x1b[1m[ERROR]\x1b[0m Failed to execute goal\n\n\x1b[0m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := logTail(p); got != "[ERROR] Failed to execute goal" {
		t.Errorf("logTail = %q", got)
	}
	if got := logTail(filepath.Join(t.TempDir(), "none")); !strings.HasPrefix(got, "(no log") {
		t.Errorf("logTail of no file = %q", got)
	}
}
