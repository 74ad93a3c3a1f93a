package scenarios

// Ground is what a scenario's run stands on. It binds the common flags
// that mean something there and leaves out those the run would ignore, so
// a scenario says where it runs, never which flags it lacks.
type Ground int

const (
	// EtcdMembers is etcd members as child processes, or a cluster attached
	// to: every common flag, --net private and the external cluster's
	// flags included. It is the zero value.
	EtcdMembers Ground = iota
	// LoopbackServers is servers that stay on 127.0.0.1 behind the harness's
	// link proxies (Eureka's model or real servers, a real Nacos server):
	// --duration, --port-base and --keep; no --net, no external etcd.
	LoopbackServers
	// OwnMembers is members the harness starts itself, on the loopback
	// or in a private network namespace (a real ZooKeeper ensemble): every
	// common flag but the external etcd cluster's.
	OwnMembers
	// VirtualClock is a simulation on a virtual clock with no process to
	// start: --duration only.
	VirtualClock
	// Computation is a computation with neither a timeline nor a process: none
	// of --duration, --port-base, --keep, --net or the external flags.
	Computation
)

// String names the world in help and errors.
func (w Ground) String() string {
	switch w {
	case EtcdMembers:
		return "etcd"
	case LoopbackServers:
		return "loopback servers"
	case OwnMembers:
		return "members of its own"
	case VirtualClock:
		return "virtual clock"
	case Computation:
		return "computation"
	}
	return "unknown world"
}

// Offers reports whether a scenario of this world has the common flag
// name (without its dashes). Flags every run has (--seed, --format,
// --out, --runs …) are offered by every world.
func (w Ground) Offers(name string) bool {
	switch name {
	case "duration":
		return w != Computation
	case "port-base", "keep":
		return w == EtcdMembers || w == LoopbackServers || w == OwnMembers
	case "net":
		return w == EtcdMembers || w == OwnMembers
	case "external":
		return w == EtcdMembers
	}
	return true
}
