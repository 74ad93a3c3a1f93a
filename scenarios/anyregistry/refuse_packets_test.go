package anyregistry

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// TestOtherWorldsRefusePackets: the worlds that do not drop packets (etcd, Eureka, ZooKeeper) refuse dropped packets (how: drop,
// member-unreachable) in one ErrCannot line naming the step.
func TestOtherWorldsRefusePackets(t *testing.T) {
	sec := func(n int) experiment.Duration { return experiment.Duration(time.Duration(n) * time.Second) }
	steps := []experiment.Step{{At: sec(3), For: sec(18), Fault: experiment.Unreachable, How: experiment.Drop},
		{At: sec(3), For: sec(18), Fault: experiment.MemberUnreachable}}
	for _, name := range []experiment.Registry{etcdName, eurekaName, zookeeperName} {
		reg, err := rig.RegistryFor(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			x := experiment.Experiment{Name: "x", Summary: "x", Duration: sec(30), Instances: experiment.Instances{Count: 3},
				Timeline: []experiment.Step{st}}
			err := reg.Can(x)
			if err == nil || !errors.Is(err, rig.ErrCannot) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), string(st.Fault)) {
				t.Errorf("%s Can(%s %s) = %v, want one ErrCannot line naming it", name, st.Fault, st.HowOf(), err)
			}
		}
	}
}
