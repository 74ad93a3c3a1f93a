package rig

import "sdchaos/experiment"

// refusePackets refuses, in one line, the steps that drop real packets (registry-unreachable
// how: drop, member-unreachable) in a world that does not make them yet.
func refusePackets(name experiment.Registry, x experiment.Experiment) error {
	for i, s := range x.Timeline {
		switch {
		case s.Fault == experiment.MemberUnreachable:
			return Cannotf("%s: timeline[%d]: member-unreachable (one member's client packets dropped) is not made in this world yet (the Nacos world makes it)", name, i)
		case s.NeedsPackets():
			return Cannotf("%s: timeline[%d]: %s how: drop (every client packet dropped) is not made in this world yet (the Nacos world makes it)", name, i, s.Fault)
		}
	}
	return nil
}
