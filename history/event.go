package history

import "time"

// EventKind says what happened at an event: which fault, or which probe.
type EventKind string

// The fault and probe kinds the harness records.
const (
	// KillMembers: registry members SIGKILLed
	// (heal: restarted on their data dirs).
	KillMembers EventKind = "kill-members"
	// PauseMembers: registry members frozen with SIGSTOP (heal: SIGCONT).
	PauseMembers EventKind = "pause-members"
	// PartitionMember: one member cut off from its peers (its consensus
	// and election traffic); clients still reach it.
	PartitionMember EventKind = "partition-member"
	// BlackholeLinks: every client link to the registry holds its bytes.
	BlackholeLinks EventKind = "blackhole-client-links"
	// RejectLinks: client links to the registry refused and reset.
	RejectLinks EventKind = "reject-client-links"
	// DelayLinks: latency added to every client link to the registry.
	DelayLinks EventKind = "delay-client-links"
	// PacketDropPeers: a share of the packets between one member and its peers dropped (private network namespace; one way
	// or both).
	PacketDropPeers EventKind = "packet-drop-peers"
	// PacketDropClients: a share of the packets between clients and the
	// members' client ports dropped (private network namespace).
	PacketDropClients EventKind = "packet-drop-clients"
	// PacketDropMember: a share of every packet to and from one member
	// dropped (private network namespace).
	PacketDropMember EventKind = "packet-drop-member"
	// PacketResetClients: a share of the clients' packets to the
	// members answered with a TCP reset (private network namespace).
	PacketResetClients EventKind = "packet-reset-clients"
	// DeregisterInstances: every instance is deregistered from the registry
	// while its endpoint stays up and answers (heal: registered again), so
	// the registry answers an empty list although every instance is alive
	// (a registry emptied; Targets the instances).
	DeregisterInstances EventKind = "deregister-instances"
	// CrashInstance: a service instance stops answering and renewing.
	CrashInstance EventKind = "crash-instance"
	// RestartCallers: caller processes killed (a JVM SIGKILLed, an
	// in-process client stopped and closed) and started again at once on
	// their own disk caches (Phase Once; Targets the callers; Err set when
	// one could not be started again).
	RestartCallers EventKind = "restart-callers"
	// CallerStart and CallerStop: a caller process (re)starts or stops.
	CallerStart EventKind = "caller-start"
	// CallerStop: a caller stops (the process that will restart).
	CallerStop EventKind = "caller-stop"
	// Probe: a probe step of the timeline ran (its results are ops).
	Probe EventKind = "probe"
)

// Phase says whether an event starts a fault, ends it, or is a one-off action.
type Phase string

const (
	// Inject starts a fault.
	Inject Phase = "inject"
	// Heal ends a fault.
	Heal Phase = "heal"
	// Once is an action that has no end (a probe, a caller restart).
	Once Phase = "once"
)

// Event is one typed event on the run's timeline: what (kind), to whom
// (targets: member, instance, server or caller names), which phase, and
// when (offset from time zero). Label is for people and never matched.
type Event struct {
	At      time.Duration `json:"at_ns"`
	Kind    EventKind     `json:"kind"`
	Phase   Phase         `json:"phase"`
	Targets []string      `json:"targets,omitempty"`
	Label   string        `json:"label"`
	// Cluster names the cluster the targets belong to when a run has
	// several whose names repeat (self-preservation's "on" and "off"
	// clusters each have workers w01…w50); empty when the run has one, or
	// the fault acts on the whole world. Figures draw an event only in the
	// panels of its cluster.
	Cluster string `json:"cluster,omitempty"`
	// Err says why the fault did not take effect (empty when it did); a
	// run with such an event is invalid.
	Err string `json:"err,omitempty"`
	// Origin, when positive, is the 1-based index of the step of the
	// experiment written as data that made the event.
	Origin int `json:"origin,omitempty"`
}

// OfOrigin returns the events made by step i (1-based) of the experiment.
func (es Events) OfOrigin(i int) Events {
	var out Events
	for _, e := range es {
		if e.Origin == i {
			out = append(out, e)
		}
	}
	return out
}

// Second returns the 0-based second the event falls in.
func (e Event) Second() int { return int(e.At / time.Second) }

// Events is a run's event list, sorted by time.
type Events []Event

// First returns the first event of kind in phase.
func (es Events) First(kind EventKind, phase Phase) (Event, bool) {
	for _, e := range es {
		if e.Kind == kind && e.Phase == phase {
			return e, true
		}
	}
	return Event{}, false
}

// All returns every event of kind in phase.
func (es Events) All(kind EventKind, phase Phase) Events {
	var out Events
	for _, e := range es {
		if e.Kind == kind && e.Phase == phase {
			out = append(out, e)
		}
	}
	return out
}
