package netns_test

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/netns"
)

func init() {
	// __netns-test-harness plays the command: it re-executes itself as
	// __netns-test-run in a private namespace and exits with its code.
	childproc.Register("__netns-test-harness", func([]string) int {
		code, err := netns.Reexec([]string{"__netns-test-run"}, os.Environ())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 99
		}
		return code
	})
	// __netns-test-run plays the run inside: it starts a child (as the run
	// starts etcd members), prints "<pid> <child pid> <netns inode>
	// <inside>", and exits 7 on SIGTERM after stopping its child.
	childproc.Register("__netns-test-run", func([]string) int {
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		sup, err := childproc.NewSupervisor(nil)
		if err != nil {
			return 98
		}
		defer sup.Close()
		c, err := sup.Start(childproc.Spec{Name: "sleeper", Command: "__netns-test-sleep", LogPath: os.DevNull})
		if err != nil {
			return 97
		}
		var st syscall.Stat_t
		_ = syscall.Stat("/proc/self/ns/net", &st)
		fmt.Printf("%d %d %d %t\n", os.Getpid(), c.Pid(), st.Ino, netns.Inside())
		<-term
		return 7
	})
	childproc.Register("__netns-test-sleep", func([]string) int { time.Sleep(time.Hour); return 0 })
	// __netns-test-no-userns forbids new user namespaces in its own (the
	// sysctl is per user namespace) and prints what Supported says.
	childproc.Register("__netns-test-no-userns", func([]string) int {
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
			fmt.Println("cannot forbid user namespaces:", err)
			return 1
		}
		err := netns.Supported()
		fmt.Println(errors.Is(err, netns.ErrUnsupported), err)
		return 0
	})
}

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// holders returns the pids whose network namespace has inode ino.
func holders(ino uint64) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/ns/net")
	var pids []int
	for _, p := range paths {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Ino == ino {
			var pid int
			_, _ = fmt.Sscanf(p, "/proc/%d/", &pid)
			pids = append(pids, pid)
		}
	}
	return pids
}
