// Package nacosarticle is the room of the Nacos article on the etcd world,
// an incident write-up: 18 s of packet loss to the registry made clients
// drop their instance lists and the whole system failed; when the registry
// came back, hundreds of pods re-registered at once and knocked it over
// again. Its scenarios, each against a real 3-member etcd cluster:
// registry-jitter (the incident and the cache policies that survive it),
// snapshot-at-start (a caller restarting during the outage, with and
// without a disk snapshot), reregistration-storm (all at once vs jittered
// back-off, judged on what etcd received) and minority-partition (what a
// member cut off from its peers still serves). The same article on the
// real Nacos server is the room nacosincident. Each scenario is a plan
// (its Run, in <scenario>.go) and a judge (<scenario>_judge.go: the typed
// measurement filled from the recorded history, and the checks derived
// from it).
package nacosarticle
