package eureka

import "time"

// ServerTarget is a Eureka server the Eureka faults act on: a server of
// the Go model or a real Netflix Eureka server, whichever back-end the run
// uses.
type ServerTarget interface {
	// Name labels the server in events ("s1", "on-s2").
	Name() string
	// Kill SIGKILLs the server's process and waits until it is gone.
	Kill()
	// Step steps the server's wall clock by d (model time).
	Step(d time.Duration) error
	// Delay adds d (model time) before every request the server handles.
	Delay(d time.Duration) error
}
