package nacosincident

// stormHelp is nacos-storm's help text: setup, phases, every band's rule
// with the source it comes from, what is only reported, the article's claim.
const stormHelp = `The Nacos article's re-registration storm on the real pieces (package nacosreal, docs/nacos-real.md): a real Nacos
3.1.0 server (the third-party republication io.github.pig-mesh.nacos:nacos-server 3.1.0-bugfix, standalone, every port
on 127.0.0.1; a JVM child) and --instances (200) ephemeral instances, each its own nacos-sdk-go v2.3.2 client (its own
gRPC connection) behind its own loopback link proxy, registered 8 at a time. Two phases, each on its own fresh server
(started for the phase, killed after it: neither storm sees the other's leftovers):
  immediate  every link healed at once: each instance re-registers when its SDK's own reconnect loop gets through
  jitter     each link healed at a uniform random delay in [0, --spread) (5s) drawn from --seed: a jittered
             re-registration. The jitter is the harness's, not the SDK's: nacos-sdk-go's reconnect back-off is
             min(turns, 50) × 100 ms with no randomness (RpcClient.reconnect), so the harness delays each link's return.
Ports: phase k uses --port-base + k × 3900: JRaft at its base, the server at + 1000 (gRPC + 2000, + 2001), the links
from + 1002 (gRPC proxies 1000 above), the instances' endpoints from + 3000.

Timeline of a phase (its own time zero: the server listed every instance): at --fault-at (5s) every link is
blackholed (bytes held both ways, connections open) for --loss (40s), then healed (all at once, or each after its
delay), then --after (20s) after the last heal; --duration, when given, is one phase's length. Recorded: the server's list every 100 ms through its admin API (GET
/nacos/v3/admin/ns/instance/list), its readiness endpoint, its JVM's CPU time (/proc/<pid>/stat utime + stime) and RSS
(/proc/<pid>/status VmRSS) every 500 ms, its own logs (ejections, disconnects), each instance's first registration
(duration, error) and each link's heal. Typed events: blackhole-client-links inject and heal (at the last link's
heal), one pair per phase (the event's cluster names the phase).

The rules (alibaba/nacos 3.1.0; nacos-sdk-go v2.3.2): an ephemeral instance registered over gRPC lives as long as its
connection (ConnectionBasedClientManager); a connection silent 20 s (RuntimeConnectionEjector.KEEP_ALIVE_TIME) is sent
a ClientDetectionRequest and unregistered with its instances if it does not answer within 5 s
(NacosRuntimeConnectionEjector), the ejector running 3 s after its previous run ended (ConnectionManager); an
instance's client looks at its connection every 5 s from its start and sends a health check when it was idle 5 s
(KEEP_ALIVE_TIME, RpcClient.healthCheck) and nothing else; the first look comes less than 5 s after the registration
and skips, so the first health check comes 10 s after the client's start: every instance registers within seconds of
the server listing them all, and at --fault-at (5 s) an instance may have been silent up to 10 s (nacos-incident's
instances, registered 30 s before, at most 5 s). A failed health check (3 s, DEFAULT_TIMEOUT_MILLS) starts
the reconnect loop: each attempt dials and waits up to 3 s for its server check (GrpcClient.connectToServer), then
sleeps min(turns, 50) × 100 ms (at most 5 s); an attempt in flight at the heal is answered then. A new connection
sends its setup and sleeps 100 ms (sendConnectionSetupRequest), then OnConnected re-registers the cached instance once
(ConnectionEventListener.redoRegisterEachService: a failed redo is only logged). The server pushes a change 500 ms
later, changes merged (PushDelayTask), and the list its admin API answers is refreshed by that push (ServiceStorage).

Checks, per phase (L the loss measured from the fault to the first heal, S the heal spread, first to last):
  removed every instance during the loss (listed none): no when L < 14.75 s (silent up to 10 s before the loss, probed
    at 20 s silent, ejected 5 s later, − 250 ms), yes when L > 33.5 s (the last to cross 20 s of silence may wait 5 s
    for a run busy with others' probes, 3 s for the next, 5 s on its own probe, + 500 ms), either between; when it
    listed none: [14.75, 34] s into the loss (+ the 500 ms push delay).
  first instance removed, after the loss began: [14.75, 29] s (the earliest removal above; the first connection 20 s
    silent is probed at the ejector's next run, within 3 s, ejected 5 s later, + 500 ms, + the 500 ms push delay).
  most instances listed beyond the links healed by then = 0 (when the server had listed none): an instance
    re-registers only over its own healed link.
  every instance listed again, after the first heal: [S, S + 9.1 s] (reconnect sleep 5 s + server check 3 s + setup
    100 ms + push delay 500 ms + 500 ms slack; the redo's RegisterInstance round trip inside the slack: a server too
    loaded to answer it in time is what the band catches).
Across the phases:
  jitter: peak re-registrations per 100 ms (the most instances the server's list gained between two readings 100 ms
    apart, after the first heal) ≤ immediate's: the jitter only delays the links' heals. This band is the one taken
    from a measured figure (the other phase's), as the comparison the article draws.
Reported, not judged (no rule bounds them): the first registrations' durations, the server's CPU time over the loss,
over the storm window (the first S + 9.1 s after the first heal) and over the phase, its peak CPU (cores, between two
probes), its RSS at the fault and at most after it, its ejections and disconnects in the loss, and whether it fell
over: readiness probes and list readings that failed after the heal.
Gates (invalid, never judged), per phase: every instance registered; the server was ready and listed every instance
before the fault; every link was healed; the loss lasted --loss ± 500 ms.

The scaled storm (--cpu-limit C): this machine cannot hold the article's hundreds of pods per core of a production
server, so the server is scaled down instead of the fleet: once each phase's server is ready its JVM is moved into a cgroup
of its own with a CPU quota of C CPUs (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us over cpu.cfs_period_us, 100 ms periods;
package cpulimit), removed when the phase ends, and by the harness's reaper if the harness is killed. N instances against
C CPUs stand for N ÷ C instances per core of an unlimited server. The article's claims, that the immediate re-registration
knocked the recovering server over (a readiness probe, 1 s timeout, or a list reading failed after the heal) and that
jitter spares it, are reported in the conclusion, not judged: a JVM at a small quota is held at it through the loss too
(the conclusion gives its share over the loss), so being held predicts nothing, and no rule says when its queue makes a probe fail.
Under a quota the phases' timings (the removal during the loss, the re-listing, the per-bin peaks) are reported, not
judged: their bands are for a server whose CPU is not capped, and the quota's bursts, not its average, set them. Metrics cpu_limit, <phase>.fell_over,
<phase>.quota_use_storm, <phase>.throttled_periods. Where no cgroup is writable the run ends with one line saying so.

The article: when the network came back, hundreds of pods re-registered at once and knocked the recovering Nacos server
over; jittered back-off is the remedy. --seed draws the jitter's delays; the SDK's own randomness (connection ids) is
not the harness's to seed.`
