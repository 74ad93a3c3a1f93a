package nacos

import (
	"context"
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/history"
	"sdchaos/ports"
)

// TestSupervisorCloseEndsServerAndCaller: Close alone (no Kill) ends the server's JVM and a
// Java caller's, frees the server's ports and removes nacos.home.
func TestSupervisorCloseEndsServerAndCaller(t *testing.T) {
	needJVM(t)
	sup := newSup(t)
	s := startServer(t, sup, 4)
	home, err := sup.TempDir("sdchaos-nacos-caller-*", false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(time.Hour) // never calls: it only has to be running
	c, err := StartJavaCaller(context.Background(), sup, JavaCallerSpec{Name: "idle", Mode: Plain, Server: s.Addr(), Home: home,
		CallerSpec: CallerSpec{Service: "svc", Rate: 1, Start: start, End: start.Add(time.Second), CallTimeout: time.Second,
			Log: NewCallLog(history.NewRecorder(start), "idle")}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.started:
	case <-time.After(2 * time.Minute):
		t.Fatal("the caller did not start within 2 minutes")
	}
	pids := []int{s.Pid(), c.Pid()}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if childproc.Alive(pid) {
			t.Errorf("pid %d alive after Close", pid)
		}
	}
	for _, p := range []int{s.Port(), s.Port() + GRPCOffset, s.Port() + ClusterGRPCOffset, s.Port() + RaftOffset} {
		if err := ports.CheckFree(p); err != nil {
			t.Errorf("port %d taken after Close: %v", p, err)
		}
	}
	for _, d := range []string{s.Home(), home} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s left after Close: %v", d, err)
		}
	}
}
