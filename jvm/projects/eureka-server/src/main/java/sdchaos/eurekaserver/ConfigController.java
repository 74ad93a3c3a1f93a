package sdchaos.eurekaserver;

import java.util.LinkedHashMap;
import java.util.Map;

import com.netflix.discovery.EurekaClientConfig;
import com.netflix.eureka.EurekaServerConfig;

import org.springframework.cloud.netflix.eureka.server.InstanceRegistryProperties;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /sdchaos/config}: the settings the harness gives the server, as the running server
 * holds them, read back from its own configuration beans (what eureka-core and Spring Cloud
 * read): property name as the harness passes it → value. A property Spring did not bind (a
 * misspelt name) shows its default here, not the value given.
 */
@RestController
public class ConfigController {

	private final EurekaServerConfig server;
	private final EurekaClientConfig client;
	private final InstanceRegistryProperties registry;

	/** Creates the controller on the server's configuration beans. */
	public ConfigController(EurekaServerConfig server, EurekaClientConfig client, InstanceRegistryProperties registry) {
		this.server = server;
		this.client = client;
		this.registry = registry;
	}

	/** Serves the effective settings. */
	@GetMapping(path = "/sdchaos/config", produces = "application/json")
	public Map<String, String> config() {
		Map<String, String> m = new LinkedHashMap<>();
		String s = "eureka.server.";
		m.put("eureka.client.registry-fetch-interval-seconds", str(client.getRegistryFetchIntervalSeconds()));
		m.put("eureka.client.register-with-eureka", str(client.shouldRegisterWithEureka()));
		m.put("eureka.client.fetch-registry", str(client.shouldFetchRegistry()));
		m.put(s + "eviction-interval-timer-in-ms", str(server.getEvictionIntervalTimerInMs()));
		m.put(s + "renewal-threshold-update-interval-ms", str(server.getRenewalThresholdUpdateIntervalMs()));
		m.put(s + "expected-client-renewal-interval-seconds", str(server.getExpectedClientRenewalIntervalSeconds()));
		m.put(s + "response-cache-update-interval-ms", str(server.getResponseCacheUpdateIntervalMs()));
		m.put(s + "max-time-for-replication", str(server.getMaxTimeForReplication()));
		m.put(s + "peer-node-connect-timeout-ms", str(server.getPeerNodeConnectTimeoutMs()));
		m.put(s + "peer-node-read-timeout-ms", str(server.getPeerNodeReadTimeoutMs()));
		m.put(s + "wait-time-in-ms-when-sync-empty", str(server.getWaitTimeInMsWhenSyncEmpty()));
		m.put(s + "registry-sync-retry-wait-ms", str(server.getRegistrySyncRetryWaitMs()));
		m.put(s + "registry-sync-retries", str(server.getRegistrySyncRetries()));
		m.put(s + "renewal-percent-threshold", str(server.getRenewalPercentThreshold()));
		m.put(s + "enable-self-preservation", str(server.shouldEnableSelfPreservation()));
		m.put(s + "use-read-only-response-cache", str(server.shouldUseReadOnlyResponseCache()));
		m.put("eureka.instance.registry.default-open-for-traffic-count", str(registry.getDefaultOpenForTrafficCount()));
		return m;
	}

	private static String str(Object v) {
		return String.valueOf(v);
	}
}
