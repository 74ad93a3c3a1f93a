package dns

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/ports"
)

const harnessCmd = "__dns-harness"

func init() {
	// harnessCmd plays a harness: it starts a CoreDNS server (a cache layer
	// forwarding to a port nothing serves), prints "<dir> <pid> <port>"
	// and waits to be killed (or panics, given "panic").
	childproc.Register(harnessCmd, func(args []string) int {
		base, _ := strconv.Atoi(args[0])
		sup, err := childproc.NewSupervisor(nil)
		if err != nil {
			return 1
		}
		dir, err := sup.TempDir("sdchaos-dns-*", false)
		if err != nil {
			return 1
		}
		cfg := ServerConfig{Zone: DefaultZone, Forward: netip.MustParseAddrPort(ports.Addr(base + 1)), Cache: &Cache{}}
		s, err := StartServer(context.Background(), sup, ports.New(base, "test"), dir, "h", cfg)
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println(dir, s.Pid(), s.Port)
		if len(args) > 1 && args[1] == "panic" {
			time.Sleep(100 * time.Millisecond)
			panic("the harness panics")
		}
		time.Sleep(time.Hour)
		return 0
	})
}

// TestHarnessEndLeavesNothing ends a harness that started a CoreDNS server
// (SIGKILL, SIGTERM, SIGINT, a panic) and checks that the server's process, its
// port and the run's dir disappear (parent-death signal and the reaper).
func TestHarnessEndLeavesNothing(t *testing.T) {
	needReal(t)
	for i, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, panicked} {
		t.Run(end(sig), func(t *testing.T) {
			dir, pid, port := endHarness(t, testPortBase+30+2*i, sig)
			t0 := time.Now()
			waitGone(t, sig, func() bool { return !childproc.Alive(pid) }, "CoreDNS pid "+strconv.Itoa(pid))
			waitGone(t, sig, func() bool { return ports.CheckFree(port) == nil }, "port "+strconv.Itoa(port))
			waitGone(t, sig, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }, "dir "+dir)
			t.Logf("CoreDNS, its port and the dir gone %d ms after the harness's %s", time.Since(t0).Milliseconds(), end(sig))
		})
	}
}

// endHarness starts the harness, sends it sig once its server answers,
// waits for it to end and returns what it printed.
func endHarness(t *testing.T, base int, sig syscall.Signal) (dir string, pid, port int) {
	t.Helper()
	exe, _ := os.Executable()
	args := []string{harnessCmd, strconv.Itoa(base)}
	if sig == panicked {
		args = append(args, "panic")
	}
	cmd := exec.Command(exe, args...)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 3 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("harness said %q (%v)", line, err)
	}
	pid, _ = strconv.Atoi(f[1])
	port, _ = strconv.Atoi(f[2])
	if sig != panicked {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	_ = cmd.Wait()
	return f[0], pid, port
}

// panicked stands for a harness that panics instead of being signalled.
const panicked = syscall.Signal(0)

// end names how the harness ended.
func end(sig syscall.Signal) string {
	if sig == panicked {
		return "panic"
	}
	return unix.SignalName(sig)
}

// waitGone waits up to 20 s for gone to hold.
func waitGone(t *testing.T, sig syscall.Signal, gone func() bool, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for !gone() {
		if clock.SleepFor(ctx, 50*time.Millisecond) != nil {
			t.Fatalf("%s still there 20 s after the harness's %s", what, end(sig))
		}
	}
}
