package eureka

// WorkerTarget is a worker instance the Eureka faults crash (the Go
// workers of either back-end).
type WorkerTarget interface {
	// ID is the worker's instance id ("w01").
	ID() string
	// Crash makes the worker die at once without cancelling its lease.
	Crash()
}

// Switch is a group of clients' path to the servers that a partition cuts
// (a switch in their transport, eureka.Link).
type Switch interface {
	Block()
	Unblock()
}
