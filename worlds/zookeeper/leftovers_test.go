package zookeeper

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/ports"
)

const harnessCmd = "__zookeeper-harness"

func init() {
	// harnessCmd plays a harness: it starts an ensemble, prints
	// "<dir> <pid> <pid> <pid>" and waits to be killed.
	childproc.Register(harnessCmd, func(args []string) int {
		base, _ := strconv.Atoi(args[0])
		sup, err := childproc.NewSupervisor(nil)
		if err != nil {
			return 1
		}
		e, err := Start(context.Background(), sup, ports.New(base, "test"), DefaultConfig())
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		out := []string{e.Dir}
		for _, m := range e.Members() {
			out = append(out, strconv.Itoa(m.Pid()))
		}
		fmt.Println(strings.Join(out, " "))
		time.Sleep(time.Hour)
		return 0
	})
}

// TestHarnessSIGKILLLeavesNothing SIGKILLs a harness that started an
// ensemble and checks that every member JVM and the ensemble's dir disappear
// (parent-death signal and the reaper).
func TestHarnessSIGKILLLeavesNothing(t *testing.T) {
	needLong(t)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, harnessCmd, strconv.Itoa(testPortBase+100))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) != 4 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("harness said %q (%v)", line, err)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	for _, f := range fields[1:] {
		pid, _ := strconv.Atoi(f)
		for childproc.Alive(pid) {
			if clock.SleepFor(ctx, 50*time.Millisecond) != nil {
				t.Fatalf("member pid %d still runs 40 s after the harness's SIGKILL", pid)
			}
		}
	}
	for {
		if _, err := os.Stat(fields[0]); os.IsNotExist(err) {
			break
		}
		if clock.SleepFor(ctx, 50*time.Millisecond) != nil {
			t.Fatalf("the ensemble's dir %s is still there 40 s after the harness's SIGKILL", fields[0])
		}
	}
	t.Logf("three member JVMs and the dir gone %d ms after the harness's SIGKILL", time.Since(t0).Milliseconds())
}
