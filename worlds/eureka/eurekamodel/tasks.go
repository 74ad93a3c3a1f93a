package eurekamodel

import (
	"sort"
	"time"
)

// Tasks is a queue of periodic tasks with java.util.Timer's fixed-delay
// semantics (Timer.schedule(task, delay, period)): a task runs once its next
// time has come, and its next time becomes the time it was run plus its
// period. Tasks due at the same instant run in the order they were added.
// Tasks is driven from outside (RunDue), so it runs on any clock. Not safe
// for concurrent use.
type Tasks struct {
	list []*task
	seq  int
}

type task struct {
	name   string
	next   time.Time
	period time.Duration
	run    func(now time.Time)
	seq    int
}

// Every adds a task first due at first and then every period after each run.
func (q *Tasks) Every(name string, first time.Time, period time.Duration, run func(now time.Time)) {
	q.seq++
	q.list = append(q.list, &task{name: name, next: first, period: period, run: run, seq: q.seq})
}

// Next returns the earliest due time, and false if there is no task.
func (q *Tasks) Next() (time.Time, bool) {
	if len(q.list) == 0 {
		return time.Time{}, false
	}
	q.sort()
	return q.list[0].next, true
}

// RunDue runs every task due at or before now, earliest first (ties in the
// order added), reschedules each at now + period, and returns their names.
func (q *Tasks) RunDue(now time.Time) []string {
	q.sort()
	var ran []string
	for _, t := range q.list {
		if t.next.After(now) {
			break
		}
		t.run(now)
		t.next = now.Add(t.period)
		ran = append(ran, t.name)
	}
	return ran
}

func (q *Tasks) sort() {
	sort.SliceStable(q.list, func(i, j int) bool {
		a, b := q.list[i], q.list[j]
		if a.next.Equal(b.next) {
			return a.seq < b.seq
		}
		return a.next.Before(b.next)
	})
}
