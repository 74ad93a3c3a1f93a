// Package cmdrun runs the experiments command, built once per set of sources into the user's
// cache and reused by every test binary (Main, Command), for the real-world tests under
// integration/; builds other programs the tests need once per module version the same way
// (UpstreamBinary); and checks what a run leaves (child processes, listening ports, temp dirs).
package cmdrun

import (
	"bufio"
	"flag"
	"fmt"
	"os"
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

// Main finds the command built from these sources (not under -short), building it first if no
// test binary did, and runs the package's tests: a test package's TestMain calls it.
//
// Where the command lives, and why nothing is left behind: Main writes nothing into the temp
// dir. The command is built once per content of its sources (the build IDs of every package it
// links, go list -export) into the user's cache, CacheDir()/experiments/<key>/experiments, and
// every test binary at the same sources reuses it (Command, Built). A test binary may be
// SIGKILLed at any point (go test's timeout, a user's kill -9) and never runs a clean-up, so
// every file a build writes lives in that cache under a name ending in .tmp, the link into
// <key>.tmp/ and go's own work dirs into work.tmp/ (GOTMPDIR), and a finished build is renamed
// into place; the go commands die with the test binary (Pdeathsig). Whatever a killed build
// leaves is then a .tmp in the cache, which the next build removes under the kind's build lock
// (only the lock's holder writes one). A build stays while some test binary uses it (a shared
// flock, which the kernel drops with the process, however it dies) and is removed by the next
// build of other sources that finds it unused, so the cache holds one command per set of
// sources in use and never grows with every edit. A temp dir per test binary handed to a reaper
// (childproc's) would also go after a SIGKILL, but needs a second process watching each test
// binary and still links the command once per package; the cache needs no watcher and spares
// every test binary after the first its link. The command is linked without VCS stamping
// (one binary serves every commit with these sources): it names its revision from git in its
// working directory. The temp dirs Main made before (one per test binary,
// sdchaos-integration-<pid>-*) are still removed when their binary is gone.
func Main(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	removeStale()
	exe, err := Command()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmdrun: building the command:", err)
		os.Exit(1)
	}
	Exe = exe
	os.Exit(m.Run())
}

// dirPrefix starts the name of the temp dir earlier versions of Main built the command in; the
// test binary's pid follows, so that a later Main can tell a dir whose binary is gone.
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
