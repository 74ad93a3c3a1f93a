package netns

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// envMarker names the environment variable that marks a process running in
// a namespace made by Reexec. Its value is the inode of the network
// namespace the harness started in (the host's), so a marker inherited by
// mistake outside the namespace is not believed.
const envMarker = "SDCHAOS_NETNS_HOST"

// Inside reports whether this process runs in a private network namespace
// made by Reexec (the marker is set and the process's network namespace is
// not the one the marker names). Children of such a process (etcd members)
// are inside too.
func Inside() bool { return checkInside() == nil }

// checkInside returns why this process is not in a private namespace.
func checkInside() error {
	v, ok := os.LookupEnv(envMarker)
	if !ok {
		return fmt.Errorf("not in a private network namespace (%s unset)", envMarker)
	}
	host, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("bad %s=%q", envMarker, v)
	}
	self, err := netnsInode()
	if err != nil {
		return err
	}
	if self == host {
		return fmt.Errorf("%s is set but this process is in the host's network namespace", envMarker)
	}
	return nil
}

// netnsInode returns the inode of this process's network namespace.
func netnsInode() (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/net", &st); err != nil {
		return 0, fmt.Errorf("reading this process's network namespace: %w", err)
	}
	return st.Ino, nil
}
