package zookeeper

import (
	"context"
	"os"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
)

// Test ports: from 3100 (a range no other package's tests use: the real tests of packages
// that do not take the machine lock may run at the same time), each test its own block of 50.
const testPortBase = 3100

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

// needJVM skips under -short.
func needJVM(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real ZooKeeper ensemble (JVMs): skipped under -short")
	}
}

// longEnv, set to 1,, runs the package's long real-ensemble tests (each
// starts its own ensemble and Java clients: minutes each on two cores). The
// default suite's real ZooKeeper test is cmd/experiments'
// TestZooKeeperWorldThroughTheSeam, one ensemble for every fault.
const longEnv = "SDCHAOS_ZK_LONG"

// needLong skips a long real-ensemble test unless longEnv is 1.
func needLong(t *testing.T) {
	t.Helper()
	needJVM(t)
	if os.Getenv(longEnv) != "1" {
		t.Skipf("a long real-ensemble test: run it with %s=1", longEnv)
	}
}

// skipWithoutJVM skips the test in one line when err says java or mvn is missing.
func skipWithoutJVM(t *testing.T, err error) {
	t.Helper()
	if jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err)
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

// TestBuildPieces builds both JVM pieces (Maven needs the network the first
// time: run it once outside a network namespace) and reports how long it took.
func TestBuildPieces(t *testing.T) {
	needJVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for _, p := range []jvm.Piece{jvm.ZooKeeperServer, jvm.ZooKeeperCallers} {
		t0 := time.Now()
		jar, err := jvm.Build(ctx, p, t.Logf)
		skipWithoutJVM(t, err)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s in %.1f s", p, jar, time.Since(t0).Seconds())
	}
}
