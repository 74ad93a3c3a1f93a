package nacosincident

// memberRestartHelp is `help nacos-member-restart`.
const memberRestartHelp = `One member of a real three-member Nacos 3.1 cluster (nacos.DefaultClusterSpec: embedded
storage, naming only, data warm-up on, CDS) is SIGKILLed under traffic at --restart-at and its JVM
launched again --down later on its own nacos.home (JRaft data, embedded store, cluster.conf): the
restart of alibaba/nacos#10209 ("restarting one non-leader member of three, a member that was not
restarted pushed DataSize=0 and services failed with an empty instance list", Nacos 2.x, closed as
invalid). Every client — the --instances registrants (nacos-sdk-go) and the six callers of
nacos-incident (spring, spring-fallback, plain, plain-protect, go-sdk, go-java-default) — is given
every member, each through its own link proxy (the same addresses across the restart), and picks
among them as a Nacos client does. Which member holds each instance's connection is read from the
members' APIs once every instance is listed (Cluster.Owners); every member's publishers of the
service are read every 200 ms, and every member's naming-push.log at the end.

The rules the bands come from (alibaba/nacos at 486e198, the 3.1.0 the run's jars are built from):
- A member keeps the clients Distro copied to it from another member until they go unverified for
  3 min: ConnectionBasedClient.isExpire (naming/.../core/v2/client/impl/ConnectionBasedClient.java:74)
  against ClientConstants.DEFAULT_CLIENT_EXPIRED_TIME (naming/.../constants/ClientConstants.java:44),
  checked by ConnectionBasedClientManager's ExpiredClientCleaner every DEFAULT_HEART_BEAT_INTERVAL,
  5 s (ConnectionBasedClientManager.java:54, api Constants.java:189). The member holding a client's
  connection renews those copies by its verify every 5 s (DistroConstants.java:50).
- A client that loses its member reconnects to another of its list, and its redo registers its
  instance again on the new connection: a new client id on that member, synced to the others.
- A subscriber is pushed the union of every publisher's instance: ServiceStorage.getAllInstancesFromIndex
  (naming/.../core/v2/index/ServiceStorage.java:106) collects them into a HashSet of Instance, equal
  by toString (api/.../naming/pojo/Instance.java:223), so the old copy and the new registration of
  one instance are listed once, and the list never loses an instance that lives.
- With nacos.naming.data.warmup (DefaultClusterSpec) the restarted member reports ready only once
  Distro has loaded its snapshot from a peer.
So no member should push fewer than every instance, no client's list should shrink, and no call
should fail; the survivors should drop the killed member's copies of its instances' clients
[3 min − 5 s, 3 min + 5 s + 200 ms + 0.5 s] after the kill (they were last verified at most 5 s
before it). The check on that is invalid when the killed member held no instance's connection
(each client picks its member at random).

Checks: any member pushed fewer than every instance after the kill (no; #10209 says yes); per
caller the fewest instances its client's listener held after the kill (every instance; #10209:
none, for the unguarded callers) and its calls that failed for want of an instance or of the
registry from the kill to the end (0; by the caller's error class: a call that reached a live
instance and failed or timed out there is counted apart, in the conclusion); the survivors'
expiry of the killed member's clients (band above). Gates: every caller ran to the end and served
in the second before the kill, the member served again at least 20 s before the end, the
instances' members were read. --duration defaults to --restart-at + 3m20s, so that the expiry is in
the run; a shorter run whose end comes before the expiry's upper bound, with the copies still held,
leaves it not judged and says so in its conclusion. Metrics: cluster_start_s (from the first member's launch to the cluster serving),
member_start_cpu_max_s (the most JVM CPU a member had used by then), kill_s, relaunch_s, member_ready_after_launch_s,
instances_on_killed_member, shrunk_pushes, survivors.peak_publishers, survivors.expired_after_s,
per caller <name>.fail_after, .list_fail_after, .fewest_listed and the per-second series' metrics.`
