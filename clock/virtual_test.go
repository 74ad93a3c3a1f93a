package clock

import (
	"testing"
	"time"
)

func TestVirtualTimersFireInOrder(t *testing.T) {
	v := NewVirtual()
	a := v.NewTimer(3 * time.Second)
	b := v.NewTimer(1 * time.Second)
	tk := v.NewTicker(2 * time.Second)
	defer tk.Stop()
	v.Advance(1500 * time.Millisecond)
	select {
	case got := <-b.C():
		if want := Epoch.Add(time.Second); !got.Equal(want) {
			t.Fatalf("b fired at %v, want %v", got, want)
		}
	default:
		t.Fatal("b did not fire")
	}
	select {
	case <-a.C():
		t.Fatal("a fired early")
	default:
	}
	v.Advance(2 * time.Second) // now 3.5s: a fires at 3s, ticker at 2s (one buffered tick)
	if got := <-a.C(); !got.Equal(Epoch.Add(3 * time.Second)) {
		t.Fatalf("a fired at %v", got)
	}
	if got := <-tk.C(); !got.Equal(Epoch.Add(2 * time.Second)) {
		t.Fatalf("tick at %v", got)
	}
	if v.Now() != Epoch.Add(3500*time.Millisecond) {
		t.Fatalf("now = %v", v.Now())
	}
}

func TestVirtualStopAndReset(t *testing.T) {
	v := NewVirtual()
	tm := v.NewTimer(time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	if tm.Stop() {
		t.Fatal("second Stop reported true")
	}
	tm.Reset(2 * time.Second)
	v.Advance(time.Second)
	select {
	case <-tm.C():
		t.Fatal("fired early after Reset")
	default:
	}
	v.Advance(time.Second)
	<-tm.C()
	if v.Pending() != 0 {
		t.Fatalf("pending = %d", v.Pending())
	}
}

func TestVirtualSleepWakesOnAdvance(t *testing.T) {
	v := NewVirtual()
	done := make(chan struct{})
	go func() { v.Sleep(5 * time.Second); close(done) }()
	for v.Pending() == 0 {
		time.Sleep(time.Millisecond)
	}
	v.Advance(5 * time.Second)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Sleep did not return")
	}
}
