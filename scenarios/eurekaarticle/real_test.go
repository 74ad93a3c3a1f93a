package eurekaarticle

import (
	"os"
	"testing"

	"sdchaos/jvm"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/eureka/eurekareal"
)

// realPortBase keeps the real-Eureka runs apart from the model's and
// from every other package's tests, which go test runs at the same time
// (nacosreal's Nacos servers take 9700–13800, nacos-incident's 15000–17100).
const realPortBase = 18000

// runReal runs a Eureka scenario against real Netflix Eureka servers and
// the Java DiscoveryClient (built by Maven on first use), skipping where
// the machine has no Java or Maven, and requires every measurement inside
// its band and every run's metadata to name what ran (realEurekaMeta).
func runReal(t *testing.T, name string, args ...string) *report.Result {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real Eureka servers (JVMs)")
	}
	if _, err := jvm.Java(); err != nil {
		t.Skip(err)
	}
	if _, err := jvm.Maven(); err != nil {
		t.Skip(err)
	}
	return scentest.RunReproducedThen(t, realPortBase, "runs real Eureka servers (JVMs)", name,
		func(res *report.Result) { realEurekaMeta(t, res) }, append([]string{"--eureka", "real"}, args...)...)
}

// TestEurekaFailoverAgainstRealEureka: kill -9 of the server the real
// DiscoveryClients are stuck to; each switches at its next fetch after 2
// failed attempts, no task fails, no worker goes missing.
func TestEurekaFailoverAgainstRealEureka(t *testing.T) {
	res := runReal(t, "eureka-failover", "--workers", "10")
	scentest.Between(t, res, "switch_s@15", 0, 16)
	scentest.Between(t, res, "switch_s@30", 0, 31)
	scentest.Between(t, res, "failed_attempts@15", 2, 2)
	scentest.Between(t, res, "tasks.fail", 0, 0)
	scentest.Between(t, res, "workers_lost", 0, 0)
}

// realEurekaMeta requires a real-Eureka run's metadata to name the server
// and every component with its version, the properties the servers, the
// Java schedulers and the Go workers ran with, and every constant the real
// server fixes in code that the bands assume.
func realEurekaMeta(t *testing.T, res *report.Result) {
	t.Helper()
	scentest.NamesEveryComponent(t, res, "Netflix Eureka server 2.", eurekareal.ServerComponent, eurekareal.SpringServerComponent,
		eurekareal.ClientComponent, eurekareal.SpringBootComponent, eurekareal.SpringCloudComponent, "Spring Boot loader", "Java runtime")
	scentest.HasSettings(t, res, "eureka servers", "eureka.server.enable-self-preservation", "eureka.server.renewal-percent-threshold",
		"eureka.server.eviction-interval-timer-in-ms", "eureka.client.registry-fetch-interval-seconds", "eureka.client.register-with-eureka", "JVM options")
	scentest.HasSettings(t, res, "Java scheduler", "eureka.eurekaServer.readTimeout", "SDCHAOS_FETCH_INTERVAL", "JVM options")
	scentest.HasSettings(t, res, "Go workers", "leaseInfo.renewalIntervalInSecs", "leaseInfo.durationInSecs")
	for _, h := range eurekareal.HardCoded {
		found := false
		for _, c := range res.Meta.Constants {
			found = found || (c.Name == h.Field && c.Value == h.Value && c.Where == h.Where && c.Model != "")
		}
		if !found {
			t.Errorf("meta lacks the constant %s = %s (%s) with its model value", h.Field, h.Value, h.Where)
		}
	}
}

// TestSelfPreservationAgainstRealEureka: the whole scenario against real
// servers (about 8 minutes: the real renewals window is 60 s of real time,
// so two of them come before the partition and two fit in it). It runs
// only with SDCHAOS_LONG=1; go test ./... runs eurekareal's scaled
// self-preservation test against a real cluster instead, and
// results/eureka-real holds this scenario's run.
func TestSelfPreservationAgainstRealEureka(t *testing.T) {
	if os.Getenv("SDCHAOS_LONG") == "" {
		t.Skip("about 8 minutes; set SDCHAOS_LONG=1 (eurekareal's tests check a scaled self-preservation against real servers)")
	}
	res := runReal(t, "self-preservation", "--workers", "20")
	scentest.Between(t, res, "off.evicted", 20, 20)
	scentest.Between(t, res, "r3.fail", 0, 0)
}
