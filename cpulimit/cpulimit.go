// Package cpulimit puts processes under a CPU quota: a cgroup the harness makes (cgroup v2's
// cpu.max, or v1's cpu controller: cpu.cfs_quota_us over cpu.cfs_period_us) and removes
// again. It needs root and a writable cgroup hierarchy with the cpu controller; where there is
// none, New returns ErrUnavailable.
package cpulimit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrUnavailable: no writable cgroup hierarchy with the cpu controller here.
var ErrUnavailable = errors.New("no writable cgroup with the cpu controller (needs root and cgroup v2 with cpu enabled, or v1's cpu hierarchy)")

// Period is the quota's period: the cgroup's processes may run Cores × Period of CPU time in
// each Period (the kernel's default CFS period).
const Period = 100 * time.Millisecond

// Roots where New looks for a hierarchy, v2 first (tests may change them).
var (
	V2Root = "/sys/fs/cgroup"
	V1Root = "/sys/fs/cgroup/cpu"
)

// Prefix starts the name of every cgroup the harness makes.
const Prefix = "sdchaos-"

// Limit is one cgroup with a CPU quota.
type Limit struct {
	dir   string
	v2    bool
	cores float64
}

// New makes the cgroup Prefix+name with a quota of cores CPUs (cores × Period per Period).
func New(name string, cores float64) (*Limit, error) {
	if !(cores > 0 && cores <= 64) {
		return nil, fmt.Errorf("cpulimit: cores (%g) must be within (0, 64]", cores)
	}
	quota := int64(cores * float64(Period/time.Microsecond))
	if quota < 1000 {
		return nil, fmt.Errorf("cpulimit: cores (%g) give a quota of %d µs per %s; the kernel wants at least 1000", cores, quota, Period)
	}
	period := int64(Period / time.Microsecond)
	if root, ok := v2Root(); ok {
		l := &Limit{dir: filepath.Join(root, Prefix+name), v2: true, cores: cores}
		return l, l.make(map[string]string{"cpu.max": fmt.Sprintf("%d %d", quota, period)})
	}
	if st, err := os.Stat(filepath.Join(V1Root, "cpu.cfs_quota_us")); err == nil && !st.IsDir() {
		l := &Limit{dir: filepath.Join(V1Root, Prefix+name), cores: cores}
		return l, l.make(map[string]string{"cpu.cfs_period_us": strconv.FormatInt(period, 10), "cpu.cfs_quota_us": strconv.FormatInt(quota, 10)})
	}
	return nil, ErrUnavailable
}

// v2Root reports the v2 root when it is a cgroup2 hierarchy whose children get the cpu
// controller (listed in its cgroup.subtree_control).
func v2Root() (string, bool) {
	b, err := os.ReadFile(filepath.Join(V2Root, "cgroup.subtree_control"))
	if err != nil {
		return "", false
	}
	return V2Root, strings.Contains(" "+strings.TrimSpace(string(b))+" ", " cpu ")
}

// make creates the dir and writes the settings in order (v1 wants the period before a quota
// that could exceed it); on error it removes the dir.
func (l *Limit) make(settings map[string]string) error {
	if err := os.Mkdir(l.dir, 0o755); err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return fmt.Errorf("cpulimit: making %s: %w", l.dir, err)
	}
	for _, f := range []string{"cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.max"} {
		v, ok := settings[f]
		if !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(l.dir, f), []byte(v), 0o644); err != nil {
			_ = l.Remove()
			return fmt.Errorf("cpulimit: writing %s to %s: %w", v, f, err)
		}
	}
	return nil
}

// Dir returns the cgroup's directory.
func (l *Limit) Dir() string { return l.dir }

// Cores returns the quota in CPUs.
func (l *Limit) Cores() float64 { return l.cores }

// Describe says what the limit is, for reports ("cgroup v1 cpu: 25000 µs per 100000 µs = 0.25 CPU").
func (l *Limit) Describe() string {
	v := "v1 cpu.cfs_quota_us"
	if l.v2 {
		v = "v2 cpu.max"
	}
	return fmt.Sprintf("cgroup %s: %d µs per %d µs = %g CPU", v, int64(l.cores*float64(Period/time.Microsecond)), Period/time.Microsecond, l.cores)
}

// Add moves process pid (every thread of it) into the cgroup; its children started later
// are born inside.
func (l *Limit) Add(pid int) error {
	if err := os.WriteFile(filepath.Join(l.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("cpulimit: moving pid %d into %s: %w", pid, l.dir, err)
	}
	return nil
}

// Throttled returns how many periods the cgroup's processes wanted more than the quota, of
// how many, and for how long in all (cpu.stat).
func (l *Limit) Throttled() (throttled, periods int64, wait time.Duration, err error) {
	b, err := os.ReadFile(filepath.Join(l.dir, "cpu.stat"))
	if err != nil {
		return 0, 0, 0, fmt.Errorf("cpulimit: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "nr_periods":
			periods = n
		case "nr_throttled":
			throttled = n
		case "throttled_time": // v1, ns
			wait = time.Duration(n)
		case "throttled_usec": // v2
			wait = time.Duration(n) * time.Microsecond
		}
	}
	return throttled, periods, wait, nil
}

// Remove removes the cgroup; it must hold no process any more (the kernel refuses
// otherwise). Removing one already gone is not an error.
func (l *Limit) Remove() error {
	if err := os.Remove(l.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cpulimit: removing %s: %w", l.dir, err)
	}
	return nil
}
