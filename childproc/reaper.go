package childproc

import (
	"bufio"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sdchaos/procstat"
)

const reaperCmd = "__reaper"

// How long the reaper waits for the killed children to be gone, and then
// retries removing their dirs.
const (
	reapWait   = 30 * time.Second
	reapRemove = 10 * time.Second
)

func init() { Register(reaperCmd, reaperMain) }

// reaperMain reads "pid N", "unpid N", "dir P", "undir P" and "exit" lines
// from stdin. On EOF without "exit" (the harness died) it SIGKILLs the
// remembered pids and removes the remembered dirs.
func reaperMain([]string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	pids := map[int]bool{}
	dirs := map[string]bool{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		verb, arg, _ := strings.Cut(sc.Text(), " ")
		switch verb {
		case "pid", "unpid":
			if n, err := strconv.Atoi(arg); err == nil {
				pids[n] = verb == "pid"
			}
		case "dir", "undir":
			dirs[arg] = verb == "dir"
		case "exit":
			return 0
		}
	}
	var waitFor []int
	for pid, live := range pids {
		if !live {
			continue
		}
		if isOurChild(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL) // its group: every child leads one
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		// Also wait for a child that is already exiting on its own (its
		// watchdog saw the harness die; its environ may be unreadable then).
		waitFor = append(waitFor, pid)
	}
	// A dying child may still create files in its data dir: wait until the
	// children are gone, then retry the removal until a deadline. A killed
	// member inside an fsync on a busy disk can take seconds to go, so the
	// wait is long; it is bounded only against a pid taken over meanwhile.
	deadline := time.Now().Add(reapWait)
	for _, pid := range waitFor {
		for Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	removeBy := time.Now().Add(reapRemove)
	for d, live := range dirs {
		for live && os.RemoveAll(d) != nil && time.Now().Before(removeBy) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	return 0
}

// Alive reports whether process pid still runs (a zombie counts as gone).
func Alive(pid int) bool {
	st, err := procstat.Read(pid)
	return err == nil && !st.Zombie()
}

// isOurChild guards against pid reuse: the process must carry our
// environment marker.
func isOurChild(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && strings.Contains(string(env), envParentPID+"=")
}
