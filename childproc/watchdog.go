package childproc

import (
	"io"
	"os"
	"strconv"
	"time"
)

// Environment variables passed from the supervisor to its children.
const (
	envParentPID  = "SDCHAOS_PARENT_PID"
	envWatchdogFD = "SDCHAOS_WATCHDOG_FD"
	envControlIn  = "SDCHAOS_CONTROL_IN_FD"
	envControlOut = "SDCHAOS_CONTROL_OUT_FD"
)

// startWatchdog makes a child exit as soon as the harness is gone: the
// watchdog pipe reaches EOF when the harness process dies (the kernel closes
// its end), and the parent pid changes when it is reparented.
func startWatchdog() {
	if fd, err := strconv.Atoi(os.Getenv(envWatchdogFD)); err == nil {
		f := os.NewFile(uintptr(fd), "watchdog")
		go func() {
			_, _ = io.Copy(io.Discard, f)
			os.Exit(3)
		}()
	}
	if ppid, err := strconv.Atoi(os.Getenv(envParentPID)); err == nil {
		go func() {
			for range time.Tick(200 * time.Millisecond) {
				if os.Getppid() != ppid {
					os.Exit(3)
				}
			}
		}()
	}
}
