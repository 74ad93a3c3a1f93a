package worldtest

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

// The command's exit codes these tests expect (cmd/experiments/main.go).
const (
	exitReproduced    = 0
	exitNotReproduced = 1
	exitInvalid       = 3
	exitInterrupted   = 130
	exitTerminated    = 143
)

// exe is the experiments command, built once by TestMain (empty under -short).
var exe string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "sdchaos-worldtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "worldtest: temp dir:", err)
		os.Exit(1)
	}
	exe = filepath.Join(dir, "experiments")
	if out, err := exec.Command("go", "build", "-o", exe, "sdchaos/cmd/experiments").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "worldtest: building the command: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needJVM skips under -short and without java or mvn (one line each).
func needJVM(t *testing.T, what string) {
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

// waitForLineWithin reads r until a line contains want, failing the test
// if the command ends first or limit passes.
func waitForLineWithin(t *testing.T, r interface{ Read([]byte) (int, error) }, want string, limit time.Duration) {
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

// eventually waits for probe to report nothing left, up to 45 s: after a
// SIGKILL the reaper waits up to 30 s for the children to die, then retries
// removing their dirs for up to 10 s.
func eventually(t *testing.T, what string, probe func() string) {
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

// children lists live processes started by the harness with pid parent
// (they carry its pid in their environment).
func children(parent int) string {
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

// busyPorts lists the ports of [from, to) something still listens on.
func busyPorts(from, to int) string {
	var busy []string
	for p := from; p < to; p++ {
		if ports.CheckFree(p) != nil {
			busy = append(busy, strconv.Itoa(p))
		}
	}
	return strings.Join(busy, " ")
}

// leftovers lists what is left in dir.
func leftovers(dir string) string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}
