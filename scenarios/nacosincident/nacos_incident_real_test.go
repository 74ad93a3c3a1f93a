package nacosincident

import (
	"strings"
	"testing"

	"sdchaos/jvm"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/nacos"
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
	res := scentest.RunReproducedThen(t, incidentPortBase, "starts a real Nacos server (a JVM)", "nacos-incident",
		func(res *report.Result) { realNacosMeta(t, res) })
	scentest.Between(t, res, "server.fewest_listed", 3, 3)
	scentest.Between(t, res, "server.emptied", 0, 0)
	for _, n := range callerNamesOf(false) {
		scentest.Between(t, res, n+".fail_during", 0, 0)
		scentest.Between(t, res, n+".fail_after", 0, 0)
	}
}

// realNacosMeta requires a real-Nacos run's metadata to name the server
// (a third-party republication, which it must say), the Java and Go
// clients and their frameworks with their versions, the Java runtime and
// the server's settings.
func realNacosMeta(t *testing.T, res *report.Result) {
	t.Helper()
	scentest.NamesEveryComponent(t, res, "Nacos server 3.", nacos.ServerComponent, nacos.NamingComponent,
		nacos.JavaClientComponent, nacos.SpringNacosComponent, nacos.LoadBalancerComp, nacos.SpringBootComponent,
		nacos.SDKComponent, "gRPC-Go", "Spring Cloud release train", "Spring Cloud Alibaba release", "Java runtime")
	if c, _ := res.Meta.Component(nacos.ServerComponent); c.Republication == "" || !strings.Contains(res.Meta.Server, "third-party republication") {
		t.Errorf("the server %+v (line %q) does not say it is a third-party republication", c, res.Meta.Server)
	}
	if c, _ := res.Meta.Component(nacos.JavaClientComponent); c.Republication != "" || !strings.HasPrefix(c.Coordinates, "com.alibaba.nacos:") {
		t.Errorf("nacos-client %+v: want Alibaba's own artifact", c)
	}
	scentest.HasSettings(t, res, "Nacos server", "nacos.standalone", "nacos.server.main.port", "db.pool.config.connectionTimeout", "JVM options")
	if len(res.Meta.Constants) != len(serverConstants()) {
		t.Errorf("meta constants %+v: want the %d the bands assume", res.Meta.Constants, len(serverConstants()))
	}
}
