// Package article40 is the room of article 40, "a minimal registry": the
// in-process lease registry of package registry (no etcd, no network), on
// the real clock or a virtual one. Its scenarios: expiry-latency (40.1, how
// long a crashed instance stays listed under lazy, scan and heap expiry),
// ttl-false-removal (40.2, live instances falsely removed under heartbeat
// loss, the real registry on a virtual clock beside a fast simulation) and
// expiry-scan-cost (40.3, the cost of one expiry pass as the registry
// grows, judged by its log–log slope). Each scenario is a plan (its Run, in
// <scenario>.go) and a judge (<scenario>_judge.go: the typed measurement
// filled from the recorded history, and the checks derived from it).
package article40
