package xds

import (
	"context"
	"testing"
	"time"

	"sdchaos/internal/machinelock"
)

// TestFallbackToASecondControlPlane runs two control-plane replicas over
// the same registry. A client whose primary is down when it starts has
// nothing cached, so it falls back to the secondary (gRFC A71) and serves;
// once the primary is up the client goes back to it (handleRevertingToPrimary
// OnUpdate) and closes the secondary's stream; then the secondary can die
// without a failed call.
func TestFallbackToASecondControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster, two control planes and an xDS client: skipped under -short")
	}
	defer machinelock.Take(t)() // timed bands: one timed run on the machine at a time
	w := startRegistry(t, testPortBase+200)
	port, err := w.alloc.Take("xds primary")
	if err != nil {
		t.Fatal(err)
	}
	primary, err := NewControlPlane(w.sup, "xds-cp-primary", w.dir, port, w.etcd.Endpoints(), DefaultControlPlaneSettings("api"))
	if err != nil {
		t.Fatal(err)
	}
	secondary := w.startControlPlane(t, "xds-cp-secondary", DefaultControlPlaneSettings("api"))
	c, err := StartClient(w.sup, w.dir, ClientSpec{Name: "xds-client", Service: "api", Rate: testRate, CallTimeout: testCallTimeout,
		Bootstrap: Bootstrap{Server: primary.Addr, Fallback: []string{secondary.Addr}, NodeID: "xds-client"}})
	if err != nil {
		t.Fatal(err)
	}
	w.plain = c
	all := w.addrs(0, 1, 2)
	t0 := time.Now()
	w.waitServing(t, all, 20*time.Second)
	t.Logf("serving through the secondary within %.1f s of the start, the primary down", time.Since(t0).Seconds())

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	started := time.Now()
	if err := primary.Start(ctx); err != nil {
		t.Fatal(err)
	}
	w.cp = primary
	back := w.waitStreams(t, 1, ReconnectWithin(time.Since(t0))+time.Second)
	gone := waitNoStreams(t, secondary, 10*time.Second)
	t.Logf("back on the primary %.1f s after it started; the secondary's stream closed %.2f s later", back.Sub(started).Seconds(), gone.Sub(back).Seconds())
	killed := time.Now()
	secondary.Kill()
	time.Sleep(3*time.Second + testCallTimeout)
	if err := serves(c, killed, killed.Add(3*time.Second), all); err != nil {
		t.Errorf("after the secondary died: %v", err)
	}
}

// waitNoStreams waits until cp has no open ADS stream.
func waitNoStreams(t *testing.T, cp *ControlPlane, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if st, err := cp.Status(); err == nil && st.Streams == 0 {
			return time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, err := cp.Status()
	t.Fatalf("%s still has %d ADS streams after %s (%v)", cp.Name, st.Streams, within, err)
	return time.Time{}
}
