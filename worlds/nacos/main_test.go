package nacos

import (
	"context"
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// Test ports: main ports from 26700 (gRPC +1000 → 27700…, JRaft −1000 → 25700…), a range no
// other package's tests use (this package takes no machine lock, so its tests run beside the
// other packages'); each test takes its own decade so a port in TIME_WAIT from the previous
// test is not reused.
const testPortBase = 26700

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// needJVM skips under -short.
func needJVM(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real Nacos server (a JVM): skipped under -short")
	}
}

// newSup returns a supervisor closed at the end of the test.
func newSup(t *testing.T) *childproc.Supervisor {
	t.Helper()
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sup.Close() })
	return sup
}

// startServer starts a server with main port testPortBase + slot×10, skipping the test when
// the machine has no Java or Maven.
func startServer(t *testing.T, sup *childproc.Supervisor, slot int) *Server {
	t.Helper()
	return startServerSpec(t, sup, slot, func(*ServerSpec) {})
}

// startServerSpec is startServer with the spec changed by edit first.
func startServerSpec(t *testing.T, sup *childproc.Supervisor, slot int, edit func(*ServerSpec)) *Server {
	t.Helper()
	spec := DefaultServerSpec()
	spec.Logf = t.Logf
	spec.KeepHome = os.Getenv("SDCHAOS_NACOS_KEEP") != ""
	edit(&spec)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s, err := StartServer(ctx, sup, ports.New(testPortBase+slot*10, "testPortBase"), spec)
	if jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	rss, _ := s.RSS()
	t.Logf("%s ready on %s in %.1f s (build/lookup %.1f s), RSS %d MiB", s.Name(), s.Addr(),
		s.StartupTime().Seconds(), s.BuildTime().Seconds(), rss>>20)
	return s
}
