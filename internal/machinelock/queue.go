package machinelock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"sdchaos/childproc"
)

// machineQueue is a first-come, first-served lock shared by every test
// process on the machine: a queue of tickets in a state file, read and
// written under a short flock. A plain flock is not fair: a package that
// releases it and takes it again for its next test wins over a package
// already waiting, which then waits through the whole other package and
// can pass go test's per-package time limit. A ticket whose process is
// gone (killed, timed out) is dropped by the next reader.
type machineQueue struct{ dir string }

// ticket is one waiter or holder: its process and its number.
type ticket struct {
	PID int   `json:"pid"`
	ID  int64 `json:"id"`
}

// queueState is the state file: the tickets in arrival order (the first
// one holds the lock) and the last number handed out.
type queueState struct {
	Seq     int64    `json:"seq"`
	Tickets []ticket `json:"tickets"`
}

// queuePoll is how often a waiter looks whether its turn came.
const queuePoll = 100 * time.Millisecond

// acquire queues a ticket and returns once it is first; the returned
// function releases it.
func (q machineQueue) acquire() (func(), error) {
	var mine ticket
	err := q.update(func(s *queueState) {
		s.Seq++
		mine = ticket{PID: os.Getpid(), ID: s.Seq}
		s.Tickets = append(s.Tickets, mine)
	})
	if err != nil {
		return nil, err
	}
	for {
		first := false
		if err := q.update(func(s *queueState) {
			s.Tickets = slices.DeleteFunc(s.Tickets, func(t ticket) bool { return t.PID != mine.PID && !childproc.Alive(t.PID) })
			first = len(s.Tickets) > 0 && s.Tickets[0] == mine
		}); err != nil {
			return nil, err
		}
		if first {
			return func() { q.release(mine) }, nil
		}
		time.Sleep(queuePoll)
	}
}

// release removes t from the queue (an error leaves the ticket to be
// dropped once its process is gone).
func (q machineQueue) release(t ticket) {
	_ = q.update(func(s *queueState) {
		s.Tickets = slices.DeleteFunc(s.Tickets, func(x ticket) bool { return x == t })
	})
}

// update reads the state, changes it with edit and writes it back, under
// an exclusive flock of the lock file.
func (q machineQueue) update(edit func(*queueState)) error {
	lock, err := os.OpenFile(filepath.Join(q.dir, "sdchaos-scenario-tests.lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return fmt.Errorf("opening the lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("flock: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	path := filepath.Join(q.dir, "sdchaos-scenario-tests.queue")
	var s queueState
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading the queue: %w", err)
	default:
		if err := json.Unmarshal(b, &s); err != nil {
			s = queueState{} // unreadable (written by another version): start afresh
		}
	}
	edit(&s)
	out, _ := json.Marshal(s)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o666); err != nil {
		return fmt.Errorf("writing the queue: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing the queue: %w", err)
	}
	return nil
}
