package machinelock

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMachineQueueServesInArrivalOrder: with the lock held, a second and
// then a third waiter queue; the release hands the lock to the second,
// whatever the third does.
func TestMachineQueueServesInArrivalOrder(t *testing.T) {
	q := machineQueue{dir: t.TempDir()}
	release, err := q.acquire()
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 2)
	wait := func(name string) {
		r, err := q.acquire()
		if err != nil {
			t.Error(err)
			return
		}
		order <- name
		time.Sleep(10 * time.Millisecond)
		r()
	}
	go wait("second")
	waitQueued(t, q, 2)
	go wait("third")
	waitQueued(t, q, 3)
	release()
	if a, b := <-order, <-order; a != "second" || b != "third" {
		t.Errorf("served %s then %s, want second then third", a, b)
	}
}

// TestMachineQueueDropsAGoneHolder: a ticket whose process is gone (a test
// binary killed while holding the lock) does not keep the next one waiting.
func TestMachineQueueDropsAGoneHolder(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	b, _ := json.Marshal(queueState{Seq: 1, Tickets: []ticket{{PID: gone.Process.Pid, ID: 1}}})
	if err := os.WriteFile(filepath.Join(dir, "sdchaos-scenario-tests.queue"), b, 0o666); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		if r, err := (machineQueue{dir: dir}).acquire(); err == nil {
			r()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting behind a ticket whose process is gone")
	}
}

// waitQueued waits until q holds n tickets.
func waitQueued(t *testing.T, q machineQueue, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var got int
		_ = q.update(func(s *queueState) { got = len(s.Tickets) })
		if got == n {
			return
		}
	}
	t.Fatalf("the queue never held %d tickets", n)
}
