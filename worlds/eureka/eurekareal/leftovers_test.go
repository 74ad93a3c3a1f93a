package eurekareal

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

const harnessCmd = "__eurekareal-harness"

func init() {
	// harnessCmd plays a harness: it starts one real server (under
	// libfaketime when installed, so its offset file lives in the temp dir
	// too), prints "<java pid> <port> <log dir>" and waits to be killed.
	childproc.Register(harnessCmd, func(args []string) int {
		base, _ := strconv.Atoi(args[0])
		sup, err := childproc.NewSupervisor(nil)
		if err != nil {
			return 1
		}
		_, ftErr := Faketime()
		servers, err := StartCluster(context.Background(), sup, ports.New(base, "test"),
			ClusterSpec{Size: 1, Props: scaledProps(), ClockControl: ftErr == nil})
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		s := servers[0]
		fmt.Println(s.Pid(), base, filepath.Dir(s.LogPath))
		time.Sleep(time.Hour)
		return 0
	})
}

// TestCloseLeavesNothing: after the supervisor closes, the JVM, its port
// and its temp dir are gone.
func TestCloseLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real JVM")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sup := newSupervisor(t)
	defer sup.Close()
	const base = testBase + 40
	alloc := ports.New(base, "test")
	p := scaledProps()
	p.ThresholdUpdate = time.Second
	servers := startCluster(t, ctx, sup, alloc, ClusterSpec{Size: 1, Props: p})
	thresholdRunsRecorded(t, ctx, servers[0], alloc)
	pid, dir := servers[0].Pid(), filepath.Dir(servers[0].LogPath)
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	checkGone(t, pid, base, dir)
}

// thresholdRunsRecorded registers 7 workers on a lone server and waits for
// a threshold-update run that adopts their count: 7 > 0.85 × (1 + 7)
// (updateRenewalThreshold; the count is the embedded client's view).
func thresholdRunsRecorded(t *testing.T, ctx context.Context, s *Server, alloc *ports.Allocator) {
	for i := range 7 {
		port, err := alloc.Take("worker")
		if err != nil {
			t.Fatal(err)
		}
		w, err := StartWorker(ctx, WorkerSpec{App: "WORKER", ID: fmt.Sprintf("t%d", i), Port: port,
			Servers: []string{s.ServiceURL}, Props: scaledProps()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Crash()
	}
	var runs []ThresholdRun
	_, err := waitFor(ctx, 15*time.Second, "an adopted threshold-update run of count 7", func() bool {
		ev, err := s.Events(ctx)
		runs = ev.Thresholds
		return err == nil && slices.ContainsFunc(runs, func(r ThresholdRun) bool { return r.Adopted && r.Count == 7 })
	})
	if err != nil {
		t.Fatalf("%v; runs %+v", err, runs)
	}
	t.Logf("threshold-update runs: %+v", runs)
}

// TestHarnessSIGKILLLeavesNothing kills a harness that started a real
// server with SIGKILL and checks that the JVM, its port and the temp dir
// disappear (parent-death signal and the reaper).
func TestHarnessSIGKILLLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real JVM")
	}
	if _, err := jvm.Build(context.Background(), jvm.EurekaServer, nil); err != nil {
		if jvm.Missing(err) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	const base = testBase + 50
	exe, _ := os.Executable()
	cmd := exec.Command(exe, harnessCmd, strconv.Itoa(base))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("harness: %v", err)
	}
	var pid, port int
	var dir string
	if _, err := fmt.Sscan(line, &pid, &port, &dir); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("harness said %q: %v", line, err)
	}
	if !childproc.Alive(pid) {
		t.Fatal("the JVM is not running")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	checkGone(t, pid, port, dir)
}

// checkGone waits (30 s at most) for pid, port and dir to be gone.
func checkGone(t *testing.T, pid, port int, dir string) {
	t.Helper()
	start := time.Now()
	for _, c := range []struct {
		what string
		gone func() bool
	}{
		{"java pid " + strconv.Itoa(pid), func() bool { return !childproc.Alive(pid) }},
		{"port " + strconv.Itoa(port), func() bool { return ports.CheckFree(port) == nil }},
		{"temp dir " + dir, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }},
	} {
		if _, err := waitFor(context.Background(), 30*time.Second, c.what+" gone", c.gone); err != nil {
			t.Error(err)
		}
	}
	t.Logf("JVM, port and temp dir gone %d ms after their owner ended", time.Since(start).Milliseconds())
}
