// Package procstat reads the few fields of /proc/<pid>/stat the harness
// needs: a process's state and its CPU time; and its peak RSS from
// /proc/<pid>/status. Hand-written (a dozen lines)
// rather than github.com/prometheus/procfs: two fields do not justify the
// dependency.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the kernel's USER_HZ, the unit of utime and stime: 100 on
// every Linux architecture Go supports.
const userHZ = 100

// Stat is what the harness reads of one /proc/<pid>/stat line.
type Stat struct {
	// State is the one-letter state (R, S, D, T, t, Z, …).
	State byte
	// CPU is the process's user plus system time (utime + stime).
	CPU time.Duration
}

// Zombie reports whether the process has ended but was not yet reaped.
func (s Stat) Zombie() bool { return s.State == 'Z' }

// Stopped reports whether the process is stopped by a signal (T) or by a
// tracer (t).
func (s Stat) Stopped() bool { return s.State == 'T' || s.State == 't' }

// Read reads /proc/<pid>/stat; an error when the process is gone.
func Read(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, fmt.Errorf("reading the stat of pid %d: %w", pid, err)
	}
	s, err := Parse(b)
	if err != nil {
		return Stat{}, fmt.Errorf("reading the stat of pid %d: %w", pid, err)
	}
	return s, nil
}

// Parse parses one /proc/<pid>/stat line. The command name (field 2) is in
// parentheses and may itself hold spaces and ") ": the fields that follow
// start after its last ')'.
func Parse(b []byte) (Stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("no command name in %q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("short stat line %q", b)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	st, err2 := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	if err1 != nil || err2 != nil {
		return Stat{}, fmt.Errorf("bad utime/stime %q %q", f[11], f[12])
	}
	return Stat{State: f[0][0], CPU: time.Duration(ut+st) * time.Second / userHZ}, nil
}

// RSS returns the resident set size of process pid in bytes (VmRSS of
// /proc/<pid>/status); an error when the process is gone.
func RSS(pid int) (int64, error) {
	return statusBytes(strconv.Itoa(pid), "VmRSS")
}

// PeakRSS returns the resident high-water mark (VmHWM of
// /proc/<who>/status) in bytes; who is a pid or "self".
func PeakRSS(who string) (int64, error) {
	return statusBytes(who, "VmHWM")
}

// statusBytes reads one "<field>: <n> kB" line of /proc/<who>/status.
func statusBytes(who, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + who + "/status")
	if err != nil {
		return 0, fmt.Errorf("reading %s of %s: %w", field, who, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("reading %s of %s: %q", field, who, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("reading %s of %s: %q", field, who, rest)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("reading %s of %s: no %s line", field, who, field)
}
