package eureka

import "sdchaos/history"

// The Eureka world's own fault events (a world defines the event kinds of
// the faults only it makes; history names only those every world shares).
const (
	// EventKillServer: a Eureka server process SIGKILLed.
	EventKillServer history.EventKind = "kill-eureka-server"
	// EventPartitionClients: a group of Eureka clients cut off every server.
	EventPartitionClients history.EventKind = "partition-eureka-clients"
	// EventCrashWorkers: Eureka workers die without cancelling their leases.
	EventCrashWorkers history.EventKind = "crash-eureka-workers"
	// EventDelayServers: latency added to every request Eureka servers handle.
	EventDelayServers history.EventKind = "delay-eureka-servers"
	// EventStepClock: a Eureka server's wall clock steps.
	EventStepClock history.EventKind = "step-eureka-clock"
)
