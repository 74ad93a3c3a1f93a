package fault

import (
	"context"

	"sdchaos/fakeservice"
)

// CrashInstance makes a service instance stop answering at once
// (connection refused) and stop renewing its lease. It cannot be healed.
type CrashInstance struct {
	Instance *fakeservice.Instance
}

// Name returns "crash instance j1".
func (c CrashInstance) Name() string { return "crash instance " + c.Instance.ID }

// Inject crashes the instance.
func (c CrashInstance) Inject(context.Context) error {
	c.Instance.Crash()
	return nil
}
