package nacosincident

// protectHelp is `help nacos-protect-threshold`.
const protectHelp = `A persistent service on the real Nacos 3.1 server (created through the admin API with
--threshold as its protectThreshold), --instances persistent instances registered through the
admin API (no client holds them: the server health-checks each over TCP on its port), the six
callers of nacos-incident. At --crash-at the first --crash instances die (their endpoints closed,
their registrations left); at --all-dead-at the rest. alibaba/nacos#11123 asks whether
protectThreshold can be turned off and what it returns.

The rules (alibaba/nacos at 486e198):
- A dead instance is marked unhealthy at its next TCP check: a refused connection finishes the
  check with checkFailNow (naming/.../healthcheck/v2/processor/TcpHealthCheckProcessor.java:200,
  HealthCheckCommonV2.java:179), and a task checks every checkRtNormalized ms: at first 2000 + a
  random part below TcpHealthParams.max 5000 (HealthCheckTaskV2.java:92), later re-evaluated and
  capped at 5000 (HealthCheckCommonV2.java:60–75): within 7 s. The change is pushed 500 ms later.
- ServiceUtil.selectInstancesWithHealthyProtection (naming/.../utils/ServiceUtil.java:257–275): a
  threshold below 0 counts as 0; when healthy ÷ all ≤ threshold the server hands out every
  instance, the unhealthy ones marked healthy, and logs "protect threshold reached, return all
  ips". Pushes and subscribe answers go through it (PushExecutorRpcImpl.java:62,
  SubscribeServiceRequestHandler.java:82). So it cannot be turned off: with no instance healthy,
  0 ÷ n ≤ 0 fires it at any threshold.
- Clients pick among the instances marked healthy (nacos-client and nacos-sdk-go at random by
  weight; Spring Cloud LoadBalancer round robin over a list it caches 35 s).

Checks: the server's protection fired after the first crash (yes iff (instances − crash) ÷
instances ≤ threshold) and once every instance was dead (yes); per caller, its failed share once
the first crash settled (7 s + 0.5 s push + 0.5 s delivery + 0.5 s, Spring + 35 s): crash ÷
instances when the protection fires, else 0, ± 4√(p(1−p)/n) + 1/n; and once every instance was
dead, the share of its failures that hit a dead instance (100 %: the server never answers an
empty list). Variant half: --threshold 0.5. Metrics: threshold, crash_s, all_dead_s,
server.protected_stage1, server.protected_stage2, server.fewest_healthy_stage1, per caller
<name>.stage1_fail_pct, .stage2_fail_pct, .stage2_dead_instance_pct.`
