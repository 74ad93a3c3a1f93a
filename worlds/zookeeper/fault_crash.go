package zookeeper

import (
	"context"

	"sdchaos/history"
)

// CrashZooKeeperInstance makes an instance registered in ZooKeeper stop
// answering at once (connection refused) and cuts its session's link
// without a closeSession, as a killed process would: its ephemeral node
// stays until the leader expires the session. It cannot be healed.
type CrashZooKeeperInstance struct {
	Instance *Instance
}

// Describe returns the crash-instance event ("crash instance i2").
func (c CrashZooKeeperInstance) Describe() history.Event {
	return history.Event{Kind: history.CrashInstance, Targets: []string{c.Instance.ID}, Label: "crash instance " + c.Instance.ID}
}

// Inject crashes the instance.
func (c CrashZooKeeperInstance) Inject(context.Context) error {
	c.Instance.Crash()
	return nil
}
