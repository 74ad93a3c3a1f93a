package eurekareal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// ErrNoFaketime is returned (wrapped) when ClockControl is asked for and no
// libfaketime is installed (Debian: apt-get install faketime).
var ErrNoFaketime = errors.New("libfaketime not found")

// faketimeLibs are where Debian and a source install put libfaketime.
var faketimeLibs = []string{
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/local/lib/faketime/libfaketime.so.1",
}

// Faketime returns the path of libfaketime.so.1 ($SDCHAOS_LIBFAKETIME if set).
func Faketime() (string, error) {
	cands := faketimeLibs
	if p := os.Getenv("SDCHAOS_LIBFAKETIME"); p != "" {
		cands = []string{p}
	}
	for _, p := range cands {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (looked in %v); the clock step needs it (Debian: apt-get install faketime)", ErrNoFaketime, cands)
}

// fakeClock is one JVM's wall-clock offset under libfaketime: the JVM reads
// the offset file on every clock read (FAKETIME_NO_CACHE), so a rewrite of
// the file steps System.currentTimeMillis at once. Only CLOCK_REALTIME is
// faked (FAKETIME_DONT_FAKE_MONOTONIC), and FAKETIME_FORCE_MONOTONIC_FIX=0:
// without it libfaketime 0.9.10 makes the JVM's timed waits (Object.wait,
// park) return at once — measured: a 1 s Object.wait took 0 ms.
type fakeClock struct {
	path   string
	mu     sync.Mutex
	offset time.Duration
}

// newFakeClock writes a zero offset file in dir for name.
func newFakeClock(dir, name string) (*fakeClock, error) {
	c := &fakeClock{path: filepath.Join(dir, name+".faketime")}
	return c, c.write()
}

// env returns the JVM's environment for libfaketime at lib.
func (c *fakeClock) env(lib string) []string {
	return []string{"LD_PRELOAD=" + lib, "FAKETIME_TIMESTAMP_FILE=" + c.path, "FAKETIME_NO_CACHE=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_FORCE_MONOTONIC_FIX=0"}
}

// step moves the offset by d.
func (c *fakeClock) step(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	return c.write()
}

// write replaces the offset file atomically ("+12.500" seconds).
func (c *fakeClock) write() error {
	s := strconv.FormatFloat(c.offset.Seconds(), 'f', 3, 64)
	if c.offset >= 0 {
		s = "+" + s
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(s+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing the clock offset: %w", err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		return fmt.Errorf("writing the clock offset: %w", err)
	}
	return nil
}

// StepClock steps the server's wall clock by d (forward when positive): its
// System.currentTimeMillis jumps, System.nanoTime does not. It needs a
// cluster started with ClockControl.
func (s *Server) StepClock(d time.Duration) error {
	if s.clock == nil {
		return fmt.Errorf("eureka %s: no clock control (start the cluster with ClockControl)", s.Name)
	}
	if err := s.clock.step(d); err != nil {
		return fmt.Errorf("eureka %s: stepping the clock: %w", s.Name, err)
	}
	return nil
}

// ClockOffset returns the total step applied to the server's wall clock.
func (s *Server) ClockOffset() time.Duration {
	if s.clock == nil {
		return 0
	}
	s.clock.mu.Lock()
	defer s.clock.mu.Unlock()
	return s.clock.offset
}
