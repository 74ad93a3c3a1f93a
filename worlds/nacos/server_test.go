package nacos

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// checkListensAndDiesWithKill: the server's JVM listens on its four ports on 127.0.0.1 only;
// after kill -9 the JVM is gone, its ports are free, and the supervisor's Close removes its
// nacos.home.
func checkListensAndDiesWithKill(t *testing.T, sup *childproc.Supervisor, s *Server) {
	t.Helper()
	listening := listenersOf(t, s.Pid())
	for _, p := range []int{s.Port(), s.Port() + GRPCOffset, s.Port() + ClusterGRPCOffset, s.Port() + RaftOffset} {
		if !strings.Contains(listening, fmt.Sprintf("127.0.0.1:%d ", p)) {
			t.Errorf("port %d not listening on 127.0.0.1; the JVM listens on:\n%s", p, listening)
		}
	}
	if strings.Contains(listening, "0.0.0.0:") || strings.Contains(listening, "*:") {
		t.Errorf("a listener on every interface:\n%s", listening)
	}
	pid, home := s.Pid(), s.Home()
	s.Kill()
	waitFor(t, "the JVM to be gone", 10*time.Second, func() bool { return !childproc.Alive(pid) })
	for _, p := range []int{s.Port(), s.Port() + GRPCOffset, s.Port() + RaftOffset} {
		if err := ports.CheckFree(p); err != nil {
			t.Errorf("port %d still taken after kill -9: %v", p, err)
		}
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("nacos.home %s left after Close: %v", home, err)
	}
}

// listenersOf returns `ss -ltnuHp` lines of pid, one per listener, each "<local addr> ".
func listenersOf(t *testing.T, pid int) string {
	t.Helper()
	out, err := exec.Command("ss", "-ltnuHp").Output()
	if err != nil {
		t.Skipf("ss not available: %v", err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, fmt.Sprintf("pid=%d,", pid)) {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 5 {
			b.WriteString(v4Mapped.ReplaceAllString(f[4], "$1") + " \n")
		}
	}
	return b.String()
}

// v4Mapped matches an IPv4-mapped IPv6 address as ss prints it ([::ffff:198.18.0.1]).
var v4Mapped = regexp.MustCompile(`\[::ffff:([0-9.]+)\]`)

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func init() {
	// __nacosreal-test-harness plays a harness: it starts a server, prints
	// "<java pid> <main port> <nacos.home>" and waits to be killed.
	childproc.Register("__nacosreal-test-harness", func(args []string) int {
		sup, err := childproc.NewSupervisor(nil)
		if err != nil {
			return 1
		}
		spec := DefaultServerSpec()
		s, err := StartServer(context.Background(), sup, ports.New(testPortBase+90, "test"), spec)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("%d %d %s\n", s.Pid(), s.Port(), s.Home())
		time.Sleep(time.Hour)
		return 0
	})
}

// TestHarnessSIGKILLLeavesNoJVM kills a harness process (with a ready Nacos server) with
// SIGKILL: the JVM, its ports and its nacos.home must be gone within the reaper's time.
func TestHarnessSIGKILLLeavesNoJVM(t *testing.T) {
	needJVM(t)
	if _, err := jvm.Build(context.Background(), jvm.NacosServer, t.Logf); jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err) // the jar is built before the harness needs it
	} else if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "__nacosreal-test-harness")
	cmd.Stderr = os.Stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the harness printed nothing: %v", err)
	}
	var pid, port int
	var home string
	if _, err := fmt.Sscan(line, &pid, &port, &home); err != nil {
		t.Fatalf("parsing %q: %v", line, err)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	waitFor(t, "the JVM to die with its harness", 30*time.Second, func() bool { return !childproc.Alive(pid) })
	waitFor(t, "nacos.home to be removed", 30*time.Second, func() bool { _, err := os.Stat(home); return os.IsNotExist(err) })
	for _, p := range []int{port, port + GRPCOffset, port + RaftOffset} {
		waitFor(t, fmt.Sprintf("port %d to be free", p), 10*time.Second, func() bool { return ports.CheckFree(p) == nil })
	}
}
