package anyregistry

import (
	"testing"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/worlds/etcd"
	"sdchaos/worlds/eureka/eurekareal"
)

// crashRun is instance-dies-unreachable on reg: the registry unreachable
// from 3 s to 21 s, instance j1 crashed at 9 s; a caller that keeps the
// dead instance fails every third call from then on, eject fails once,
// the clients named in every third call fail that way too.
func crashRun(t *testing.T, reg experiment.Registry, everyThird ...string) worldRun {
	events := append(cut(3*time.Second, 21*time.Second),
		history.Event{At: 9 * time.Second, Kind: history.CrashInstance, Phase: history.Inject, Origin: 2, Targets: []string{"j1"}})
	thirds := map[string]bool{"keep": true}
	for _, c := range everyThird {
		thirds[c] = true
	}
	w := worldRun{reg: reg, synth: synth{x: builtinOn(t, reg, "instance-dies-unreachable"), events: events,
		listed: func(time.Duration) int { return 3 }}}
	w.fail = func(c string, at time.Duration) bool {
		if at < 9*time.Second {
			return false
		}
		if c == "eject" {
			return at < 9*time.Second+25*time.Millisecond
		}
		return thirds[c] && (at/(25*time.Millisecond))%3 == 0
	}
	return w
}

// TestInstanceDiesUnreachableJudge: each caller's failures after the
// crash are judged by its policy (round robin over a list that keeps the
// dead instance; one ejecting failure) or its world's client rule
// (gRPC drops the closed connection; the Java client's cache keeps it).
func TestInstanceDiesUnreachableJudge(t *testing.T) {
	etcdRun := func() worldRun { return crashRun(t, etcdName) }
	eureka := func() worldRun { return crashRun(t, eurekaName, eurekareal.JavaClient) }
	never := func(c string) func(*worldRun) {
		return func(w *worldRun) {
			f := w.fail
			w.fail = func(name string, at time.Duration) bool { return name != c && f(name, at) }
		}
	}
	thirds := func(c string) func(*worldRun) {
		return func(w *worldRun) {
			f := w.fail
			w.fail = func(name string, at time.Duration) bool {
				return f(name, at) || name == c && at >= 9*time.Second && (at/(25*time.Millisecond))%3 == 0
			}
		}
	}
	testMembers(t, etcdRun, []memberCase{
		{"keep never calls the dead instance", never("keep"), "keep: failures after the instance crashed"},
		{"eject keeps calling it", thirds("eject"), "eject: failures after the instance crashed"},
		{"gRPC keeps picking the closed connection", thirds(etcd.EtcdRoundRobin), etcd.EtcdRoundRobin + ": failures after the instance crashed"},
	})
	testMembers(t, eureka, []memberCase{
		{"the Java client drops the dead instance", never(eurekareal.JavaClient), eurekareal.JavaClient + ": failures after the instance crashed"},
		{"the registry empties within 18 s", func(w *worldRun) { w.listed = func(time.Duration) int { return 0 } },
			"the registry listed no instance while it was unreachable"},
	})
}
