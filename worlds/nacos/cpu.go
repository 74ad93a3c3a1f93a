package nacos

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/<pid>/stat's utime and stime: USER_HZ, 100 on every Linux
// the harness runs on (sysconf(_SC_CLK_TCK) needs cgo; the kernel's ABI fixes it at 100).
const clockTick = 10 * time.Millisecond

// CPUTime returns the CPU time process pid has used so far, user + system (utime + stime of
// /proc/<pid>/stat, its threads included).
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time of pid %d: %w", pid, err)
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime + stime from a /proc/<pid>/stat line: fields 14 and 15, counted
// after the command name's closing parenthesis (the name may hold spaces).
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("reading the CPU time: no command name in %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("reading the CPU time: %d fields after the name", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // field 3 (state) is f[0]: utime (14) is f[11], stime (15) f[12]
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("reading the CPU time: %q: %w", s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// CPUTime returns the server JVM's CPU time so far.
func (s *Server) CPUTime() (time.Duration, error) {
	d, err := CPUTime(s.child.Pid())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	return d, nil
}
