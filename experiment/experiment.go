package experiment

// Experiment is one experiment as data. Its zero values mean "the world's
// default" where a field says so; Validate checks the rest.
type Experiment struct {
	// Name names the experiment (its report and files).
	Name string `json:"name"`
	// Summary says in one line what it shows.
	Summary string `json:"summary"`
	// Registry is the world it runs on unless the command line names
	// another (--registry).
	Registry Registry `json:"registry,omitempty"`
	// Duration is the length of the measured timeline.
	Duration Duration `json:"duration"`
	// Instances are the service instances that register.
	Instances Instances `json:"instances"`
	// Callers send the traffic whose per-second ok/fail the run reports.
	Callers []Caller `json:"callers,omitempty"`
	// Timeline are the fault and probe steps, by offset from time zero.
	Timeline []Step `json:"timeline"`
	// Checks names the checks to judge, from the world's rules for this
	// experiment (empty: every check its steps call for).
	Checks []string `json:"checks,omitempty"`
}

// Registry names a world: the name its folder under worlds/ registers
// itself with (rig.RegisterRegistry); the list is open, so that a new
// world edits nothing here.
type Registry string

// Instances are the service instances of an experiment: real HTTP
// servers that register with the registry and renew (a lease, a
// heartbeat, a session) until they crash or the experiment ends.
type Instances struct {
	// Count is how many instances register.
	Count int `json:"count"`
	// TTL is how long the registry keeps a silent instance (a lease's ttl,
	// a session's timeout); 0 is the world's default. A world whose
	// registry fixes it refuses another value.
	TTL Duration `json:"ttl,omitempty"`
	// Spread, for a storm, is the window over which the instances come back
	// once the registry returns: 0 all at once, else each at a seeded
	// offset in [0, Spread).
	Spread Duration `json:"spread,omitempty"`
}

// Caller is one source of calls to the instances.
type Caller struct {
	// Name labels its row in the tables ("keep", "spring").
	Name string `json:"name"`
	// Kind is what it is: a policy caller, a real client of the world, or
	// a user's program.
	Kind CallerKind `json:"kind"`
	// Policy is a policy caller's rule on a failed refresh of its list.
	Policy Policy `json:"policy,omitempty"`
	// Eject, for a policy caller, skips an instance that failed a call for
	// this long (0: never).
	Eject Duration `json:"eject,omitempty"`
	// Client names a real client of the world (its list: `experiments
	// registries`).
	Client string `json:"client,omitempty"`
	// Command is a user's program and its arguments (kind exec), speaking
	// the one-JSON-line-per-call protocol of docs/real-clients.md.
	Command []string `json:"command,omitempty"`
	// Rate is its calls per second (0: 40).
	Rate float64 `json:"rate,omitempty"`
	// Refresh is how often a policy caller reads the instance list (0: 1s).
	Refresh Duration `json:"refresh,omitempty"`
}

// CallerKind says what a caller is.
type CallerKind string

// The caller kinds.
const (
	// PolicyCaller is the harness's caller with a stated cache policy,
	// reading the list through the world's own client library.
	PolicyCaller CallerKind = "policy"
	// RealClient is a real client of the world (a JVM, a Go SDK) at its
	// defaults or a named configuration.
	RealClient CallerKind = "client"
	// ExecClient is a user's program.
	ExecClient CallerKind = "exec"
)

// Policy is what a policy caller does with its list when a refresh fails.
type Policy string

// The policies.
const (
	// Keep keeps the old list.
	Keep Policy = "keep"
	// Clear empties it.
	Clear Policy = "clear"
)

// Step is one fault or probe of the timeline: exactly one of Fault and
// Probe.
type Step struct {
	// At is its offset from time zero.
	At Duration `json:"at"`
	// For heals the fault that long after At (0: never healed by the
	// timeline; the run heals it at its end).
	For Duration `json:"for,omitempty"`
	// Fault is the fault to inject.
	Fault FaultKind `json:"fault,omitempty"`
	// How says how the fault is made, where it can be made several ways.
	How How `json:"how,omitempty"`
	// Which says which member a member fault acts on.
	Which Which `json:"which,omitempty"`
	// Probe is the probe to run.
	Probe ProbeKind `json:"probe,omitempty"`
}

// FaultKind names a fault that means the same on every registry.
type FaultKind string

// The registry-neutral faults.
const (
	// Unreachable: the registry cannot be reached while every instance
	// lives (How: blackhole — every client's link holds its bytes, the
	// default; kill — every member SIGKILLed, restarted at the heal; drop —
	// every packet between the clients and the members dropped, in a private
	// network namespace).
	Unreachable FaultKind = "registry-unreachable"
	// CrashInstance: one instance stops answering and renewing, for good.
	CrashInstance FaultKind = "crash-instance"
	// QuorumLoss: a majority of the members SIGKILLed (restarted at the
	// heal): what the survivor still reads and writes.
	QuorumLoss FaultKind = "quorum-loss"
	// CutOffMember: one member cut off from its peers but alive and
	// reachable by clients (Which: leader or follower; How: blackhole).
	CutOffMember FaultKind = "cut-off-member"
	// MemberUnreachable: one member's packets to and from its clients
	// dropped (How: drop, in a private network namespace), the member alive
	// and still connected to its peers (Which: leader or follower).
	MemberUnreachable FaultKind = "member-unreachable"
)

// FaultKinds lists every fault an experiment may name.
var FaultKinds = []FaultKind{Unreachable, CrashInstance, QuorumLoss, CutOffMember, MemberUnreachable}

// How says how a fault is made.
type How string

// The ways a fault is made.
const (
	// Blackhole holds every byte on the links it cuts (connections stay
	// open, as under heavy packet loss).
	Blackhole How = "blackhole"
	// Kill SIGKILLs the processes.
	Kill How = "kill"
	// Drop drops every packet between the clients and the members it cuts
	// (nf_tables in the run's private network namespace, --net private):
	// TCP retransmits with growing timeouts, as on a link that loses
	// everything.
	Drop How = "drop"
	// CutPeers is how the judge tells a world's rules that a member was cut off from its peers
	// (cut-off-member, whatever made the cut): its clients' links were untouched. No
	// experiment names it; the judge passes it where a member fault's windows are judged.
	CutPeers How = "cut-peers"
	// KillQuorum is how the judge tells a world's rules that a majority of the members was
	// killed (quorum-loss), apart from every member killed (registry-unreachable how: kill). No
	// experiment names it either.
	KillQuorum How = "kill-quorum"
)

// Kills reports whether the fault made as h killed members: every member (Kill) or a
// majority (KillQuorum).
func (h How) Kills() bool { return h == Kill || h == KillQuorum }

// Which names a member.
type Which string

// The members a member fault may act on.
const (
	// Leader is the member that leads (a raft or Zab leader); a world
	// without one refuses it.
	Leader Which = "leader"
	// Follower is a member that does not lead (any member of a world
	// without a leader).
	Follower Which = "follower"
)

// ProbeKind names a probe that means the same on every registry.
type ProbeKind string

// The registry-neutral probes.
const (
	// ProbeMembers reads the instance list and registers a probe instance
	// through every member, each with a deadline, and records which member
	// answered what.
	ProbeMembers ProbeKind = "members"
)

// ProbeKinds lists every probe an experiment may name.
var ProbeKinds = []ProbeKind{ProbeMembers}
