package xds

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/fakeservice"
	"sdchaos/ports"
)

// testWorld is a real 3-member etcd, three instances with gRPC health
// servers registered on their leases, one control plane over them and two
// xDS clients: one with ignore_resource_deletion, one without.
type testWorld struct {
	sup            *childproc.Supervisor
	alloc          *ports.Allocator
	etcd           *cluster.Cluster
	group          *fakeservice.Group
	cp             *ControlPlane
	plain, ignores *Client
	dir            string
}

// keepEnv, set to 1, keeps the control plane's and the clients' logs.
const keepEnv = "SDCHAOS_XDS_KEEP"

// Client settings: 20 calls/s, 1 s deadline.
const (
	testRate        = 20
	testCallTimeout = time.Second
)

func startWorld(t *testing.T) *testWorld {
	t.Helper()
	w := startRegistry(t, testPortBase)
	w.cp = w.startControlPlane(t, "xds-cp", DefaultControlPlaneSettings("api"))
	w.plain = w.startClient(t, "xds-client-plain", w.cp, false)
	w.ignores = w.startClient(t, "xds-client-ignore", w.cp, true)
	return w
}

// startRegistry starts the etcd cluster and the instances on ports from base.
func startRegistry(t *testing.T, base int) *testWorld {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := &testWorld{alloc: ports.New(base, "the test's port base")}
	var err error
	if w.sup, err = childproc.NewSupervisor(nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.sup.Close() })
	if w.etcd, err = cluster.Start(ctx, w.sup, w.alloc, cluster.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	cfg := fakeservice.Config{Service: "api", TTL: 5 * time.Second, Renew: time.Second, CallTimeout: time.Second, GRPC: true}
	if w.group, err = fakeservice.StartGroup(ctx, cfg, 3, w.alloc, w.etcd.Endpoints()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.group.Close)
	if w.dir, err = w.sup.TempDir("sdchaos-xds-*", os.Getenv(keepEnv) == "1"); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *testWorld) startControlPlane(t *testing.T, name string, set ControlPlaneSettings) *ControlPlane {
	t.Helper()
	port, err := w.alloc.Take(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cp, err := StartControlPlane(ctx, w.sup, name, w.dir, port, w.etcd.Endpoints(), set)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane %s ready in %s", name, cp.ReadyIn.Round(time.Millisecond))
	return cp
}

func (w *testWorld) startClient(t *testing.T, name string, cp *ControlPlane, ignore bool) *Client {
	t.Helper()
	c, err := StartClient(w.sup, w.dir, ClientSpec{Name: name, Service: "api", Rate: testRate, CallTimeout: testCallTimeout,
		Bootstrap: Bootstrap{Server: cp.Addr, NodeID: name, IgnoreResourceDeletion: ignore}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (w *testWorld) clients() []*Client {
	var out []*Client
	for _, c := range []*Client{w.plain, w.ignores} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// addrs returns the gRPC addresses of the instances at the given indexes.
func (w *testWorld) addrs(idx ...int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, w.group.Instances[i].GRPCAddr)
	}
	slices.Sort(out)
	return out
}

// waitStreams waits until the control plane has n open ADS streams and
// returns when that was seen.
func (w *testWorld) waitStreams(t *testing.T, n int, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if st, err := w.cp.Status(); err == nil && st.Streams >= n {
			return time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, err := w.cp.Status()
	t.Fatalf("control plane: %d ADS streams after %s, want %d (status %+v, %v; log %s)", st.Streams, within, n, st, err, w.cp.LogPath)
	return time.Time{}
}

// waitServing waits until every client had one second of calls, all
// successful, over exactly the instances want (the second that ended one
// call deadline ago, so every call in it has reported).
func (w *testWorld) waitServing(t *testing.T, want []string, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		end := time.Now().Add(-testCallTimeout)
		if w.allServe(end.Add(-time.Second), end, want) == nil {
			return end
		}
	}
	end := time.Now().Add(-testCallTimeout)
	t.Fatalf("clients not serving over %v within %s: %v", want, within, w.allServe(end.Add(-time.Second), end, want))
	return time.Time{}
}

// allServe checks every client's calls in [from, to): at least one per
// client, all successful, over exactly the instances want.
func (w *testWorld) allServe(from, to time.Time, want []string) error {
	for _, c := range w.clients() {
		if err := serves(c, from, to, want); err != nil {
			return err
		}
	}
	return nil
}

func serves(c *Client, from, to time.Time, want []string) error {
	tl := TallyOf(c.Calls(from, to))
	if tl.OK == 0 || tl.Fail != 0 || !slices.Equal(tl.TargetList(), want) {
		return fmt.Errorf("%s over %s: %d ok over %v, %d failed (%s), want all ok over %v",
			c.Spec.Name, to.Sub(from).Round(time.Millisecond), tl.OK, tl.TargetList(), tl.Fail, firstErr(c, from, to), want)
	}
	return nil
}

// fails checks that every call of c in [from, to) failed.
func fails(c *Client, from, to time.Time) error {
	tl := TallyOf(c.Calls(from, to))
	if tl.Fail == 0 || tl.OK != 0 {
		return fmt.Errorf("%s over %s: %d ok over %v, %d failed; want every call failed", c.Spec.Name, to.Sub(from).Round(time.Millisecond), tl.OK, tl.TargetList(), tl.Fail)
	}
	return nil
}

func firstErr(c *Client, from, to time.Time) string {
	for _, l := range c.Calls(from, to) {
		if l.Outcome != OutcomeOK {
			return l.Err
		}
	}
	return "no error"
}
