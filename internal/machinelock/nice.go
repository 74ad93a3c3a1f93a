package machinelock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// SetTree sets the niceness of every thread of process root and of all
// its descendants to prio. Linux keeps a niceness per thread, and a new
// thread or process inherits its creator's, so the tree is walked again
// until a pass finds no thread it had not set (one started meanwhile); a
// thread or process that ended meanwhile is skipped.
func SetTree(root, prio int) error {
	done := map[int]bool{}
	for pass := 0; pass < 5; pass++ {
		fresh := 0
		for _, pid := range descendants(root) {
			tids, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
			if err != nil {
				continue // gone
			}
			for _, e := range tids {
				tid, err := strconv.Atoi(e.Name())
				if err != nil || done[tid] {
					continue
				}
				if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, prio); err != nil {
					if errors.Is(err, syscall.ESRCH) {
						continue
					}
					return fmt.Errorf("setting the niceness of thread %d of pid %d to %d: %w", tid, pid, prio, err)
				}
				done[tid] = true
				fresh++
			}
		}
		if fresh == 0 {
			return nil
		}
	}
	return nil
}

// descendants returns root and every process whose chain of parents
// leads to it (from /proc/<pid>/stat's ppid field).
func descendants(root int) []int {
	kids := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			kids[ppid] = append(kids[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// parentOf reads pid's parent from /proc/<pid>/stat (the field after the
// state, after the command name's closing parenthesis).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
