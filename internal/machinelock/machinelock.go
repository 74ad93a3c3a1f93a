// Package machinelock is the machine-wide, first-come first-served lock the
// timing-sensitive tests share (go test runs packages side by side), and the
// way a run of the experiments command takes it for its timed part only.
//
// A test that times a whole run in its own process takes the lock with
// Acquire. A test that runs the command can instead set EnvDir in the
// command's environment and start it at the lowest CPU priority (Nice):
// the run then starts its world (JVMs, clusters) niced and without the
// lock, takes the lock once the world is up (For), raises its own threads
// and every process it started back to the default priority, and releases
// the lock when its world has finished. A world's start-up then takes only
// CPU the timed runs leave, and the lock is held only while something is
// timed.
package machinelock

import (
	"context"
	"fmt"
	"os"
	"time"
)

// EnvDir names the environment variable that makes the experiments
// command take the lock in the directory it holds for each run's timed
// part (see For).
const EnvDir = "SDCHAOS_MACHINE_LOCK"

// Dir is this machine's lock directory: the temp dir when the process
// started (a test that later points TMPDIR elsewhere still meets the
// others here).
var Dir = os.TempDir()

// Nice is the niceness a run waiting for the lock starts at: the lowest
// CPU priority (nice 19), which its child processes inherit.
const Nice = 19

// Acquire queues for the lock in dir and returns once it is this
// process's turn, with the lock's release; ctx ending first gives ctx's
// error and leaves the queue.
func Acquire(ctx context.Context, dir string) (func(), error) {
	return machineQueue{dir: dir}.acquire(ctx)
}

// For takes the lock for a run's timed part when EnvDir is set (a no-op
// otherwise): it waits for the lock in EnvDir's directory, then sets this
// process's threads and every process it started to the default priority
// (nice 0, which needs root when the run started niced). logf gets how long
// the run waited and, at the release, how long it held the lock.
func For(ctx context.Context, logf func(format string, a ...any)) (func(), error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return func() {}, nil
	}
	asked := time.Now()
	release, err := Acquire(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("waiting for the machine lock in %s: %w", dir, err)
	}
	took := time.Now()
	if err := SetTree(os.Getpid(), 0); err != nil {
		release()
		return nil, fmt.Errorf("taking the machine lock: raising the run's processes to nice 0 (a run started under nice needs root for it): %w", err)
	}
	logf("machine lock: waited %.1f s (the world started niced meanwhile)", took.Sub(asked).Seconds())
	return func() {
		release()
		logf("machine lock: held %.1f s", time.Since(took).Seconds())
	}, nil
}
