package nacosincident

// incidentHelp is nacos-incident's help text: setup, timeline, every
// band's rule with the source it comes from, the article's claims.
const incidentHelp = `The Nacos incident on the real pieces (package nacosreal, docs/nacos-real.md): a real Nacos 3.1.0 server
(the third-party republication io.github.pig-mesh.nacos:nacos-server 3.1.0-bugfix, standalone, every port on
127.0.0.1; a JVM started from Maven Central's artifacts) and real clients. --instances Go instances
(nacos-sdk-go, each with its own client) register the service; six callers call it at --rate, open loop:
  spring           Spring Cloud Alibaba 2025.1 + Spring Cloud LoadBalancer at their defaults (the incident's setup)
  spring-fallback  the same, LoadBalancer's supplier falling back to the last non-empty list (the article's remedy)
  plain            the official nacos-client 3.1.1, push-empty protection off (its default)
  plain-protect    the same with namingPushEmptyProtection on
  go-java-default  nacos-sdk-go v2.3.2 in Java's defaults (UpdateCacheWhenEmpty: an empty list replaces its cache)
  go-sdk           nacos-sdk-go at its defaults (an empty list is ignored)
Every client (instance or caller) reaches the server through its own loopback link proxy. Ports: JRaft at
--port-base, the server at --port-base + 1000 (gRPC + 2000, + 2001), links and endpoints from + 1002
(gRPC 1000 above). The server takes 15–45 s to start, the Java callers get 30 s before the first call
(each warms its call path up with a few unrecorded calls; Spring's LoadBalancer context is built at start,
its cache first filled by the first due call).

Timeline (time zero: the callers' first call): at --fault-at (5s) the fault starts, for --loss (18s):
  --fault blackhole  every client link holds its bytes both ways, connections stay open: the article's loss
  --fault empty      every instance is deregistered while its endpoint stays up (registered again at the heal)
then --after (20s, at least 10s: a client reconnects within its reconnect loop's 5 s sleep + a 3 s attempt).
Recorded: every call (an op), the fault (typed: blackhole-client-links or deregister-instances), the
server's list every 50 ms through its admin API, the server's own logs (pushes, disconnects, ejection
probes, ejections) and each caller's list changes (its client's listener).

The server's rules (alibaba/nacos 3.1.0, the constants checked in the jars that run):
  an ephemeral instance registered over gRPC lives as long as its connection (ConnectionBasedClientManager);
  a connection silent 20 s (RuntimeConnectionEjector.KEEP_ALIVE_TIME) is sent a ClientDetectionRequest and
  unregistered with its instances if it does not answer within 5 s (NacosRuntimeConnectionEjector); the
  ejector runs with a 3 s fixed delay after its previous run ends (ConnectionManager), and a run that probes
  waits those 5 s; every client looks at its connection every 5 s and sends a health check when it was idle
  5 s (nacos-client connectionKeepAlive in RpcClient's health-check loop, nacos-sdk-go KEEP_ALIVE_TIME), so an
  instance's connection (its registrant sends nothing else, from 30 s before time zero) is silent at most
  5 s when the loss begins, and a caller's (whose setup requests come just before time zero: a request
  between two looks skips the next check) at most 10 s; a change is pushed 500 ms later, changes within it merged (PushConstants, PushDelayTask.merge), and the list the admin
  API answers is refreshed by that push task (ServiceStorage); the server pushes an empty list (no
  server-side protection; protectThreshold 0).
The clients' rules: nacos-client's ServiceInfoHolder replaces its list with every push or answer, unless
push-empty protection is on and the list is empty; a read right after a reconnect, before the redo
subscribes again, subscribes and hands the caller the server's raw answer (NacosNamingService.tryToSubscribe);
nacos-sdk-go ignores an empty list unless UpdateCacheWhenEmpty, and reads the server only when its cache has
no entry; LoadBalancer keeps a list 35 s (LoadBalancerCacheProperties), and an empty cached list is a miss
(CachingServiceInstanceListSupplier): each call then reads the discovery client; "No instances available"
is its error for an empty list.

Bands, --fault blackhole (the loss L is measured from the typed events):
  server: ejected a silent connection during the loss: no when L < 14.75 s (a caller's connection silent
    10 s at most → probed at 10 s → ejected at 15 s, − 250 ms for a health check's round trip); yes when
    L > 28.5 s (the first connection 20 s silent is probed within 3 s, ejected 5 s later, + 500 ms); either
    between. When: [14.75, 28.5] s into the loss.
  server: fewest instances listed during the loss: all when L < 19.75 s (an instance's connection silent 5 s
    at most → probed at 15 s → removed at 20 s, − 250 ms), none when L > 33.5 s, anything between.
  server: removed every instance during the loss (listed none): no when L < 19.75 s; yes when L > 33.5 s (the
    last to cross 20 s may wait 5 s for a run busy with others' probes, 3 s for the next, 5 s on its own
    probe, + 500 ms); either between. When it listed none: [19.75, 34] s into the loss (+ the push delay).
  clients: a caller's client emptied its list: no when the server never listed none; either when it did
    (after the heal a client whose subscription was ejected subscribes again on its new connection, the
    instances register again on theirs, and which comes first is a race no rule orders).
  <caller>: failures during the loss = 0, all six: a blackholed client receives nothing, keeps its list on a
    failed or unanswered read (tryToSubscribe uses the cache when the subscribe fails), the instances are
    alive and called directly.
  <caller>: failures after the heal = 0 when the server kept every instance. When it had removed some:
    spring-fallback and go-sdk 0; plain-protect ≤ 1 + rate × 50 ms (its raw read after the reconnect);
    spring, plain, go-java-default ≤ rate × (time until the server listed every instance again + 500 ms
    push delay + 500 ms) + 2 (an empty answer is held until the push after the re-registration; spring's
    LoadBalancer reads its client only when its entry expired or is empty, so no more).
Bands, --fault empty:
  server: listed no instance while they were deregistered: yes when L > 1 s (the 500 ms push delay + 500 ms).
  plain, go-java-default: failed share of the calls due in [fault + 1 s, heal + 500 ms) = 100 %: the empty
    list is pushed 500 ms after the deregistration (+ 500 ms to arrive), the refilled one ≥ 500 ms after
    the re-registration.
  spring: failed with "No instances available": yes when L > 36.5 s (its LoadBalancer entry, written before
    the push of the empty list, expires within 35 s of it; + the push's 1 s, + 500 ms), either below. Its
    first one: [0.25, 36.5] s after the fault began; from then until heal + 500 ms it fails 100 %.
  spring-fallback, plain-protect, go-sdk: failures while the registry was empty = 0 (the fallback; the
    protection, with no reconnect to bypass it; the SDK ignoring an empty list).
  every caller: failures from heal + 1 s on = 0 (the push of the re-registered instances).
Gates (invalid, never judged): the server listed every instance before the fault; each caller ran to the
end, made rate × timeline calls (−1), failed nothing in the second before the fault, and kept its schedule
(≤ 1 % of sends over 100 ms late); the fault lasted --loss ± 500 ms.

The article: 18 s of packet loss made the clients drop their instance lists; the load balancer had no
instances ("No instances available", 503) and the whole system failed. Its remedies: a balancer falling back
to the last non-empty list, protection against an empty push (and a disk snapshot at start: snapshot-at-start).
Nacos 3.1 over gRPC differs at 18 s: it removes no instance before its connection was silent 20 s and missed
the 5 s probe (a caller's connection, silent longer before the loss, may be ejected: its subscription goes,
no instance), and nothing reaches a blackholed client — the checks on the server's removal, the clients' lists and spring's failures
during the loss say "differs" with that cause; variant loss40s shows the server removing every instance
(and an empty list reaching the clients after the heal when the race goes that way), variant empty shows
the article's "No instances available" once LoadBalancer's cache expires, and the fixes holding.
--seed only labels the run: the real clients draw their own randomness (instance choice, connection ids),
which nothing outside them can seed.`

// restartHelp is the part of nacos-incident's help on --restart-at: the
// article's first fix, a caller restarted during the outage.
const restartHelp = `With --restart-at (variant restart: --loss 40s --restart-at 7s) — the article's first fix, a caller restarted
during the outage with and without its disk cache loaded at start. Two callers join the six:
  spring-cache     spring with spring.cloud.nacos.discovery.naming-load-cache-at-start=true (the fix)
  plain-cache      plain with namingLoadCacheAtStart=true
At --restart-at, inside the blackhole, six callers are killed at once — spring, spring-cache, plain, plain-cache
(JVMs, SIGKILL), go-java-default (NotLoadCacheAtStart true) and go-sdk (NotLoadCacheAtStart false, the SDK's
default) (their Go clients stopped, the calls in flight dropped) — and started again at once on their own
link and their own disk cache, which their first process wrote (nacos-client: JM.SNAPSHOT.PATH =
<caller>/cache, so <caller>/cache/nacos/naming/public; nacos-sdk-go: CacheDir <caller>/cache). Typed event:
restart-callers. A restarted caller tries its setup (its listener's subscribe) once and goes on when it
fails, as an application started during an outage does, and makes the calls due from the end of its setup
on (the same grid). spring-fallback and plain-protect keep running. The link proxy closes a killed caller's
server connection at once (its held bytes dropped with it), so the server drops that caller's subscription
at the kill; a restarted client's new connections reach nothing until the heal.
The clients' rules at a start against an unreachable server:
  nacos-client's RpcClient.start tries retryTimes (3) + 1 connections, each waiting serverCheckTimeOut (3 s)
  for a server check the blackhole holds, before the NamingService is built (12 s); nacos-sdk-go's tries
  REQUEST_DOMAIN_RETRY_TIME (3), each DEFAULT_TIMEOUT_MILLS (3 s) (9 s). With namingLoadCacheAtStart true
  ServiceInfoHolder starts from DiskCache.read of its cache dir; a cached service is not a subscribed one,
  so subscribe (NamingClientProxyDelegate.subscribe) still asks the server and throws 'Client not
  connected' (RpcClient.request: 4 tries, 100 ms apart), and each read (selectOneHealthyInstance,
  Spring's selectInstances) finds the service cached but not subscribed (NacosNamingService.tryToSubscribe),
  tries that subscribe and answers from the cache when it throws. Without it there is no list: each read's
  subscribe throws, plain's call fails, Spring Cloud Alibaba's NacosDiscoveryClient.getInstances rethrows
  (failure-tolerance-enabled false; its ServiceCache lives in memory and a restart empties it) and
  LoadBalancer answers "No instances available". nacos-sdk-go with NotLoadCacheAtStart false loads its
  cache dir at start and reads only the cache; with it true a miss subscribes and fails. After the heal a
  client with no connection connects at once when an attempt is in flight (its bytes were held), else
  within its reconnect loop's longest sleep, 5 s (min(turns + 1, 50) × 100 ms).
Bands with --restart-at (K the kill, H the heal):
  <restarted>: failures during the loss before its restart = 0 (as every caller's during the loss).
  <restarted>: failed share of its calls due from its first call again to H − 500 ms (a later read may be
    answered after the heal): 100 % for spring, plain, go-java-default (no list); 0 % for spring-cache,
    plain-cache, go-sdk (the disk cache).
  spring, plain, go-java-default: failures after the heal ≤ rate × (max(5 s, time until the server listed
    every instance again + 500 ms push delay) + 500 ms) + 2 (until the client connects, then, if the
    server lists none, until the push after the re-registration); the restarted cached callers as the
    callers they are (spring-cache as spring, plain-cache as plain, go-sdk as before).
  restarted Java callers: time from the kill to the first call, the quickest ≥ 12 s − 250 ms; Go ≥ 9 s − 250 ms.
  restarted callers: their listener's subscribe at start failed: all six.
  plain-cache: median duration of its calls while unreachable in [0.4, 0.9] s (4 tries 100 ms apart, + 500 ms).
Gates with --restart-at: every restarted caller called again before H − 500 ms; a restarted caller's calls
at --rate before its kill (−2: the calls in flight die with it) and from its first call again (−1).
--restart-at must lie within (--fault-at, --fault-at + --loss − 15 s] with --fault blackhole (a Java client's
12 s of start-up attempts + 3 s for its JVM): at 18 s of loss that is (5 s, 8 s], and the JVM's and Spring's
own start come on top of the 12 s, hence variant restart's 40 s.
The article: a client restarted while the registry is unreachable has no instances unless it loads its disk
snapshot at start (naming-load-cache-at-start=true): with it, it keeps serving.`
