package nacosincident

import (
	"testing"

	"sdchaos/jvm"
	"sdchaos/scenarios/scentest"
)

// incidentPortBase keeps the real Nacos run apart from the other tests'
// ports: JRaft at 15000, the server at 16000 (gRPC 17000, 17001), the links
// and endpoints from 16002 (gRPC proxies from 17002).
const incidentPortBase = 15000

// TestNacosIncidentAgainstRealNacos runs the incident at its defaults on
// the real Nacos server and clients (five JVMs, about two minutes; skipped
// under -short and where the machine has no Java or Maven): 18 s of loss
// removes no instance on Nacos 3.1 (a caller's connection, silent longer
// before the loss, may be ejected) and no caller fails, so the article's
// claims differ with their cause and every band holds.
func TestNacosIncidentAgainstRealNacos(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real Nacos server and four Java callers (JVMs)")
	}
	if _, err := jvm.Java(); err != nil {
		t.Skip(err)
	}
	if _, err := jvm.Maven(); err != nil {
		t.Skip(err)
	}
	res := scentest.RunReproduced(t, incidentPortBase, "starts a real Nacos server (a JVM)", "nacos-incident")
	scentest.Between(t, res, "server.fewest_listed", 3, 3)
	scentest.Between(t, res, "server.emptied", 0, 0)
	for _, n := range callerNamesOf(false) {
		scentest.Between(t, res, n+".fail_during", 0, 0)
		scentest.Between(t, res, n+".fail_after", 0, 0)
	}
}
