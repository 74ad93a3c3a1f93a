package fault

import (
	"context"

	"sdchaos/history"
)

// Crashable is a service instance of a world other than the etcd rig's (the real Nacos
// world's) that a crash stops at once.
type Crashable interface {
	// Name names the instance ("instance-1").
	Name() string
	// Crash makes the instance stop answering (connection refused) and ends its registration
	// as its process's death would (its client's connection closed).
	Crash() error
}

// CrashTarget crashes a Crashable instance. It cannot be healed.
type CrashTarget struct {
	Instance Crashable
}

// Describe returns the crash-instance event ("crash instance instance-1").
func (c CrashTarget) Describe() history.Event {
	n := c.Instance.Name()
	return history.Event{Kind: history.CrashInstance, Targets: []string{n}, Label: "crash instance " + n}
}

// Inject crashes the instance.
func (c CrashTarget) Inject(context.Context) error { return c.Instance.Crash() }
