package childproc

import (
	"bufio"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

const reaperCmd = "__reaper"

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
	for pid, live := range pids {
		if live && isOurChild(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	for d, live := range dirs {
		if live {
			_ = os.RemoveAll(d)
		}
	}
	return 0
}

// isOurChild guards against pid reuse: the process must carry our
// environment marker.
func isOurChild(pid int) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && strings.Contains(string(env), envParentPID+"=")
}
