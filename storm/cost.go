package storm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sdchaos/cluster"
	"sdchaos/procstat"
)

// ProcCost is what one process spent during a phase: CPU time (user +
// system) and its peak resident set size.
type ProcCost struct {
	// Name is "harness" (or "harness shard k/n") or a member's name.
	Name string `json:"name"`
	// CPU is user + system time over the phase.
	CPU time.Duration `json:"cpu_ns"`
	// PeakRSS is the process's resident high-water mark (VmHWM) in bytes;
	// 0 when it could not be read.
	PeakRSS int64 `json:"peak_rss_bytes"`
	// Wall is the time over which CPU was measured, where the meter knows
	// it (the harness's own; 0 for members and histories saved before).
	Wall time.Duration `json:"wall_ns,omitempty"`
}

// MemberCost reads a child's whole CPU time and peak RSS from /proc (a
// member lives for one phase, so its whole life is the phase).
func MemberCost(name string, pid int) (ProcCost, error) {
	cpu, err := procCPU(pid)
	if err != nil {
		return ProcCost{Name: name}, err
	}
	hwm, err := procstat.PeakRSS(strconv.Itoa(pid))
	return ProcCost{Name: name, CPU: cpu, PeakRSS: hwm}, err
}

// RemoteCost is what a member the harness did not start spent between two
// readings of its metrics endpoint (first at the phase's start, last at its
// end): the CPU time between them (process_cpu_seconds_total), and the
// largest resident size among them and the samples read in between
// (process_resident_memory_bytes: a lower bound of the peak, which
// /metrics does not export; /proc's VmHWM is out of reach).
func RemoteCost(name string, first, last cluster.MetricSample, between []cluster.MetricSample) ProcCost {
	peak := max(first.ProcessRSS, last.ProcessRSS)
	for _, s := range between {
		peak = max(peak, s.ProcessRSS)
	}
	cpu := time.Duration((last.ProcessCPU - first.ProcessCPU) * float64(time.Second))
	return ProcCost{Name: name, CPU: max(cpu, 0), PeakRSS: int64(peak)}
}

// procCPU returns utime + stime of pid.
func procCPU(pid int) (time.Duration, error) {
	st, err := procstat.Read(pid)
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time: %w", err)
	}
	return st.CPU, nil
}

// SelfMeter measures the harness process itself from Start to Stop: CPU
// time (getrusage, children excluded) and peak RSS (the high-water mark is
// reset at Start where the kernel allows it, Linux ≥ 4.0).
type SelfMeter struct {
	name  string
	start time.Duration
	began time.Time
	reset bool
}

// StartSelf starts measuring this process under name.
func StartSelf(name string) *SelfMeter {
	m := &SelfMeter{name: name, start: selfCPU(), began: time.Now()}
	m.reset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	return m
}

// Stop returns what the process spent since Start. Without a reset the
// peak RSS is the process's lifetime peak (an upper bound).
func (m *SelfMeter) Stop() ProcCost {
	hwm, _ := procstat.PeakRSS("self")
	return ProcCost{Name: m.name, CPU: selfCPU() - m.start, PeakRSS: hwm, Wall: time.Since(m.began)}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// IsHarness reports whether a cost row names a harness process (a shard
// included) rather than a registry member.
func IsHarness(name string) bool { return strings.HasPrefix(name, "harness") }
