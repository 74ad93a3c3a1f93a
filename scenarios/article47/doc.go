// Package article47 is the room of article 47, "the registry is
// unreachable": a 3-member etcd 3.7 cluster, instances on 20 s leases
// renewed every 2 s, callers refreshing every 1 s at 40 requests/s. Its
// scenarios: cache-on-failure (47.1, the whole registry dies),
// passive-ejection (47.2, an instance dies while it is down) and minority
// (47.3, only one member survives). Each scenario is a plan (its Run, in
// <scenario>.go) and a judge (<scenario>_judge.go: the typed measurement
// filled from the recorded history, and the checks derived from it).
package article47
