package eurekamodel

import "time"

// Replication actions (PeerAwareInstanceRegistryImpl.Action).
const (
	ActRegister  = "register"
	ActHeartbeat = "heartbeat"
	ActCancel    = "cancel"
)

// ReplicationItem is one replicated operation in a batch.
type ReplicationItem struct {
	Action   string   `json:"action"`
	Instance Instance `json:"instance"`
}

// replTask is a replication task waiting in a peer's batcher.
type replTask struct {
	item      ReplicationItem
	submitted time.Time
	expiry    time.Time
}

// id is PeerEurekaNode's task id: "<action>#<app>/<id>"; a newer task with
// the same id replaces a pending one.
func (t replTask) id() string { return t.item.Action + "#" + t.item.Instance.Key() }

// batcher is AcceptorExecutor's batching rule: tasks wait in arrival order;
// a batch (at most size tasks, expired ones dropped) is released once the
// oldest pending task has waited delay. Not safe for concurrent use.
type batcher struct {
	delay   time.Duration
	size    int
	order   []string
	pending map[string]replTask
}

func newBatcher(delay time.Duration, size int) *batcher {
	return &batcher{delay: delay, size: size, pending: map[string]replTask{}}
}

// add appends t, or replaces the pending task with the same id in place.
func (b *batcher) add(t replTask) {
	if _, ok := b.pending[t.id()]; !ok {
		b.order = append(b.order, t.id())
	}
	b.pending[t.id()] = t
}

// len returns the number of pending tasks.
func (b *batcher) len() int { return len(b.order) }

// dueAt returns when the next batch may be released: the oldest task's
// submission plus the delay. False if nothing is pending.
func (b *batcher) dueAt() (time.Time, bool) {
	if len(b.order) == 0 {
		return time.Time{}, false
	}
	return b.pending[b.order[0]].submitted.Add(b.delay), true
}

// take returns the next batch if it is due at now (nil otherwise): up to
// size tasks in order, leaving out those past their expiry.
func (b *batcher) take(now time.Time) []replTask {
	due, ok := b.dueAt()
	if !ok || now.Before(due) {
		return nil
	}
	var out []replTask
	for len(out) < b.size && len(b.order) > 0 {
		id := b.order[0]
		b.order = b.order[1:]
		t := b.pending[id]
		delete(b.pending, id)
		if t.expiry.After(now) {
			out = append(out, t)
		}
	}
	return out
}

// requeue puts a failed batch back at the front, in its order, except tasks
// that expired or were superseded by a newer task with the same id.
func (b *batcher) requeue(tasks []replTask, now time.Time) {
	var front []string
	for _, t := range tasks {
		if _, newer := b.pending[t.id()]; newer || !t.expiry.After(now) {
			continue
		}
		b.pending[t.id()] = t
		front = append(front, t.id())
	}
	b.order = append(front, b.order...)
}
