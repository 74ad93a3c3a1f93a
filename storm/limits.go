package storm

import "syscall"

// RaiseFileLimit lifts the process's open-file limit as far as it may (to
// 1<<20 when privileged, else the soft limit to the hard one) and returns it.
func RaiseFileLimit() uint64 {
	want := syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
		return want.Cur
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 1024
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	return rl.Cur
}

// PerClient returns how many registrants must share one client for n to fit
// under the open-file limit: each client holds one connection, one
// descriptor (no proxy on its path: the storm's cut is held in the
// connection; it cost three with a loopback proxy's two sides).
func PerClient(n int, limit uint64) int {
	const reserve, perConn = 512, 1
	maxClients := max(1, (int(limit)-reserve)/perConn)
	return (n + maxClients - 1) / maxClients
}
