package scenarios

// World is what a scenario's run stands on. It binds the common flags
// that mean something there and leaves out those the run would ignore, so
// a scenario says where it runs, never which flags it lacks.
type World int

const (
	// EtcdWorld is etcd members as child processes, or a cluster attached
	// to: every common flag, --net private and the external cluster's
	// flags included. It is the zero value.
	EtcdWorld World = iota
	// LoopbackWorld is servers that stay on 127.0.0.1 behind the harness's
	// link proxies (Eureka's model or real servers, a real Nacos server):
	// --duration, --port-base and --keep; no --net, no external etcd.
	LoopbackWorld
	// OwnMembersWorld is members the harness starts itself, on the loopback
	// or in a private network namespace (a real ZooKeeper ensemble): every
	// common flag but the external etcd cluster's.
	OwnMembersWorld
	// VirtualWorld is a simulation on a virtual clock with no process to
	// start: --duration only.
	VirtualWorld
	// NoWorld is a computation with neither a timeline nor a process: none
	// of --duration, --port-base, --keep, --net or the external flags.
	NoWorld
)

// String names the world in help and errors.
func (w World) String() string {
	switch w {
	case EtcdWorld:
		return "etcd"
	case LoopbackWorld:
		return "loopback servers"
	case OwnMembersWorld:
		return "members of its own"
	case VirtualWorld:
		return "virtual clock"
	case NoWorld:
		return "computation"
	}
	return "unknown world"
}

// Offers reports whether a scenario of this world has the common flag
// name (without its dashes). Flags every run has (--seed, --format,
// --out, --runs …) are offered by every world.
func (w World) Offers(name string) bool {
	switch name {
	case "duration":
		return w != NoWorld
	case "port-base", "keep":
		return w == EtcdWorld || w == LoopbackWorld || w == OwnMembersWorld
	case "net":
		return w == EtcdWorld || w == OwnMembersWorld
	case "external":
		return w == EtcdWorld
	}
	return true
}
