package fault

import (
	"context"

	"sdchaos/fakeservice"
	"sdchaos/history"
)

// CrashInstance makes a service instance stop answering at once
// (connection refused) and stop renewing its lease. It cannot be healed.
type CrashInstance struct {
	Instance *fakeservice.Instance
}

// Describe returns the crash-instance event ("crash instance j1").
func (c CrashInstance) Describe() history.Event {
	return history.Event{Kind: history.CrashInstance, Targets: []string{c.Instance.ID}, Label: "crash instance " + c.Instance.ID}
}

// Inject crashes the instance.
func (c CrashInstance) Inject(context.Context) error {
	c.Instance.Crash()
	return nil
}
