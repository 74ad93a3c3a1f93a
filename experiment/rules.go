package experiment

import "time"

// Band is what a registry's rules predict for one check: Lo ≤ measured ≤
// Hi (in the check's unit), and where that comes from: the rule, with its
// source (a file, a constant, a documented default).
type Band struct {
	Lo, Hi float64
	Basis  string
}

// Role is the part a member plays in a member fault.
type Role string

// The roles a probe reports on.
const (
	// CutOff is the member cut off from its peers: alive and reachable by
	// clients, alone.
	CutOff Role = "cut-off"
	// Survivor is the member left alive by a quorum loss: reachable by
	// clients, alone, with nothing cut off.
	Survivor Role = "survivor"
	// Majority is a member on the side that kept a majority.
	Majority Role = "majority"
)

// ProbeOp is what a members probe does through one member.
type ProbeOp string

// The probe operations.
const (
	// List reads the instance list as the world's clients do.
	List ProbeOp = "list"
	// Register registers a probe instance.
	Register ProbeOp = "register"
)

// Reads is how the clients' reads of the instance list fare while a
// member fault holds.
type Reads string

// The ways reads fare.
const (
	// ReadsFail: every read fails, as when the registry is unreachable.
	ReadsFail Reads = "fail"
	// ReadsAnswer: every read is answered, with every live instance.
	ReadsAnswer Reads = "answer"
	// ReadsSome: reads through some members fail, the others answer; which
	// member a read goes to is the client's choice.
	ReadsSome Reads = "some"
)

// Outage is what a heal ends, as Recovery needs it.
type Outage struct {
	// How is how the fault was made.
	How How
	// Cut is how long the instances could not reach the registry: the
	// fault's length when it cut them off (registry-unreachable), 0 when
	// they reached a quorum throughout (a member fault).
	Cut time.Duration
	// Spread is the window over which instances that lost their
	// registration wait before registering again (0: at once).
	Spread time.Duration
}

// Rules are a world's own rules, as the registry-neutral experiments'
// judges need them. Each question a judge asks is a small interface of its
// own below (as Jepsen's optional protocols): a world answers the ones it
// has a rule for, citing its source in the band's basis, and the judge
// reports "not judged", with what it counted, for the rest. Adding a
// neutral check adds one interface; no world has to change.
type Rules any

// RefreshRule bounds when a policy caller's list refresh fails once the
// registry became unreachable.
type RefreshRule interface {
	// RefreshFails bounds when a policy caller's list refresh fails once
	// the registry became unreachable (made as how), from the cut to the
	// refresh's failure, with the refresh interval and its deadline, for
	// a refresh started at or after the cut (the judge moves lo sooner by
	// how long a refresh still in flight at the cut, which then failed,
	// had been running).
	RefreshFails(how How, refresh, timeout time.Duration) (lo, hi time.Duration, basis string)
}

// ClientOutageRule predicts a real client's failures while the registry is
// unreachable.
type ClientOutageRule interface {
	// ClientWhileUnreachable is the share (%) of a real client's calls that
	// fail while the registry is unreachable (made as how) for d and every
	// instance lives; ok is false where there is no rule for the client.
	ClientWhileUnreachable(client string, how How, d time.Duration) (Band, bool)
}

// ClientCrashRule predicts a real client's failures once an instance died
// while the registry was unreachable.
type ClientCrashRule interface {
	// ClientAfterCrash is how many of a real client's calls fail once one
	// of n instances crashed while the registry is unreachable, over a
	// window of w at rate calls per second.
	ClientAfterCrash(client string, n int, rate float64, w time.Duration) (Band, bool)
}

// RecoveryRule bounds how long a caller may fail after a heal.
type RecoveryRule interface {
	// Recovery is how long after the heal of o a caller may still fail
	// before its list is whole again (a policy caller refreshing every
	// refresh, or a real client), and why. Where o.Cut may outlast the
	// instances' registrations (RemovesSilent), the bound covers their
	// registering again.
	Recovery(c Caller, o Outage, refresh time.Duration) (time.Duration, string)
}

// SilentRemovalRule says whether the registry removes live instances it
// cannot hear.
type SilentRemovalRule interface {
	// RemovesSilent says whether the registry removes a live instance
	// while it is unreachable (made as how) for d (0: never, 1: always,
	// 0–1: either), and why.
	RemovesSilent(how How, d time.Duration) Band
}

// MemberServesRule says what a member answers during a member fault.
type MemberServesRule interface {
	// MemberServes says whether a member in role answers op since after
	// fault began (1 yes, 0 no, 0–1 either), and why.
	MemberServes(fault FaultKind, role Role, op ProbeOp, since time.Duration) (Band, bool)
}

// RelistRule bounds how long instances take to be listed again.
type RelistRule interface {
	// Relisted is how long after the registry returns every one of n
	// instances is listed again, when they come back at once (spread 0)
	// or over spread.
	Relisted(n int, spread time.Duration) (time.Duration, string)
}

// RejoinRule says how instances register again once the registry returns.
type RejoinRule interface {
	// RejoinWindow is how instances that lost their registration register
	// again once the registry returns (made unreachable as how): each at a
	// random time within span of its return, no time of which is likelier
	// than 1/spreadOver (0: all may come at once), and why.
	RejoinWindow(how How, spread time.Duration) (span, spreadOver time.Duration, basis string)
}

// MemberReadsRule says how the clients' reads fare during a member fault.
type MemberReadsRule interface {
	// MemberReads is how the clients' reads of the instance list fare
	// while member fault f holds (every instance alive), and why.
	MemberReads(f FaultKind) (Reads, string)
}

// MemberRemovesRule says whether a member fault empties the registry's list.
type MemberRemovesRule interface {
	// MemberRemoves says whether the registry's list (as the world reads it
	// on its members) lists no instance while member fault f holds for d,
	// every instance alive (0 never, 1 always, 0–1 either); ok is false
	// where the world has no rule for it.
	MemberRemoves(f FaultKind, d time.Duration) (b Band, ok bool)
}
