// Package cmdrun runs the experiments command, built once per test package,
// for the real-world tests under integration/, and checks what a run leaves.
package cmdrun

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// The command's exit codes the tests expect (cmd/experiments/main.go).
const (
	ExitReproduced    = 0
	ExitNotReproduced = 1
	ExitInvalid       = 3
	ExitEnvironment   = 4
	ExitInterrupted   = 130
	ExitTerminated    = 143
)

// Exe is the experiments command, built once by Main (empty under -short).
var Exe string

// Main builds the command into a temp dir (not under -short), runs the
// package's tests and removes the dir: a test package's TestMain calls it.
func Main(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	removeStale()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmdrun: temp dir:", err)
		os.Exit(1)
	}
	Exe = filepath.Join(dir, "experiments")
	if out, err := exec.Command("go", "build", "-o", Exe, "sdchaos/cmd/experiments").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cmdrun: building the command: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// dirPrefix starts the name of the dir Main builds the command in; the test binary's pid
// follows, so that a later Main can tell a dir whose binary is gone.
const dirPrefix = "sdchaos-integration-"

// removeStale removes the command dirs of test binaries that are gone: one SIGKILLed (go
// test's timeout, a user's kill -9) could not remove its own.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), dirPrefix)
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid <= 0 {
			continue // not one of ours
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			os.RemoveAll(d)
		}
	}
}

// NeedJVM skips under -short and without java or mvn (one line each).
func NeedJVM(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs " + what + " (JVMs)")
	}
	if _, err := jvm.Java(); err != nil {
		t.Skip(err)
	}
	if _, err := jvm.Maven(); err != nil {
		t.Skip(err)
	}
}

// WaitForLineWithin reads r until a line contains want, failing the test
// if the command ends first or limit passes.
func WaitForLineWithin(t *testing.T, r interface{ Read([]byte) (int, error) }, want string, limit time.Duration) {
	t.Helper()
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), want) {
				ok = true
				found <- true
			}
		}
		if !ok {
			found <- false
		}
	}()
	select {
	case ok := <-found:
		if !ok {
			t.Fatalf("the command ended before printing %q", want)
		}
	case <-time.After(limit):
		t.Fatalf("no line with %q within %s", want, limit)
	}
}

// Eventually waits for probe to report nothing left, up to 45 s: after a
// SIGKILL the reaper waits up to 30 s for the children to die, then retries
// removing their dirs for up to 10 s.
func Eventually(t *testing.T, what string, probe func() string) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		left := probe()
		if left == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s left behind: %s", what, left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Children lists live processes started by the harness with pid parent
// (they carry its pid in their environment).
func Children(parent int) string {
	marker := "SDCHAOS_PARENT_PID=" + strconv.Itoa(parent) + "\x00"
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !strings.Contains(string(env), marker) {
			continue
		}
		if childproc.Alive(pid) {
			found = append(found, strconv.Itoa(pid))
		}
	}
	return strings.Join(found, " ")
}

// BusyPorts lists the ports of [from, to) a socket still listens on (a
// connection's local port is not one: see ports.Listening).
func BusyPorts(from, to int) string {
	found, err := ports.Listening(from, to)
	if err != nil {
		return err.Error()
	}
	busy := make([]string, len(found))
	for i, p := range found {
		busy[i] = strconv.Itoa(p)
	}
	return strings.Join(busy, " ")
}

// Leftovers lists what is left in dir.
func Leftovers(dir string) string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}
