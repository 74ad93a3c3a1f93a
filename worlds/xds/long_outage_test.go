package xds

import (
	"os"
	"testing"
	"time"
)

// outageEnv sets the outage of TestLongControlPlaneOutage (a Go duration);
// unset, the test is skipped.
const outageEnv = "SDCHAOS_XDS_OUTAGE"

// TestLongControlPlaneOutage kills the control plane for the outage
// outageEnv names and checks the client served every call over every
// instance throughout (A57: no expiry of received resources).
func TestLongControlPlaneOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster, a control plane and an xDS client: skipped under -short")
	}
	outage, err := time.ParseDuration(os.Getenv(outageEnv))
	if err != nil {
		t.Skipf("set %s to an outage (e.g. 60s) to run it", outageEnv)
	}
	w := startRegistry(t, testPortBase+150)
	w.cp = w.startControlPlane(t, "xds-cp", DefaultControlPlaneSettings("api"))
	w.plain = w.startClient(t, "xds-client", w.cp, false)
	all := w.addrs(0, 1, 2)
	w.waitServing(t, all, 30*time.Second)
	killed := time.Now()
	w.cp.Kill()
	time.Sleep(outage + testCallTimeout)
	if err := serves(w.plain, killed, killed.Add(outage), all); err != nil {
		t.Errorf("A57: over a %s outage: %v", outage, err)
	}
	t.Logf("over a %s control-plane outage: %s", outage, describe(w.plain, killed, killed.Add(outage)))
}
