package zookeeperrun_test

import (
	"testing"

	"sdchaos/internal/cmdrun"
	_ "sdchaos/scenarios/eurekaarticle" // registers zookeeper-cp
	"sdchaos/scenarios/scentest"
)

// cpPortBase keeps zookeeper-cp's ensemble, links and clients apart from the seam test's (14100).
const cpPortBase = 23500

// TestZooKeeperCPRuns runs zookeeper-cp for real at its defaults without the Eureka half (a
// real three-server ensemble, its leader SIGKILLed, Curator and Spring Cloud Zookeeper clients;
// the Eureka half runs in the Eureka packages' tests): every survivor refuses within ZooKeeper's
// election bound and serves again after it, no check outside its band.
func TestZooKeeperCPRuns(t *testing.T) {
	cmdrun.NeedJVM(t, "a real ZooKeeper ensemble and Java clients")
	scentest.NeedLong(t, "about two minutes")
	scentest.RunReproduced(t, cpPortBase, "starts a real ZooKeeper ensemble and Java clients (JVMs)", "zookeeper-cp", "--beside-eureka=false")
}
