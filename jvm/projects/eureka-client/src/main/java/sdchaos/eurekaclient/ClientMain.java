package sdchaos.eurekaclient;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import com.netflix.appinfo.ApplicationInfoManager;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.appinfo.MyDataCenterInstanceConfig;
import com.netflix.appinfo.providers.EurekaConfigBasedInstanceInfoProvider;
import com.netflix.discovery.DefaultEurekaClientConfig;
import com.netflix.discovery.DiscoveryClient;
import com.netflix.discovery.Jersey3DiscoveryClientOptionalArgs;
import com.netflix.discovery.ObservedDiscoveryClient;
import com.netflix.discovery.shared.Application;

/**
 * A scheduler built on Netflix's plain Java {@code DiscoveryClient} (eureka-client 2.0.x with
 * the Jersey 3 transport), not Spring Cloud's wrapper: the plain client is what Spring wraps,
 * and it is configured here exactly as a non-Spring user would, through Archaius properties
 * ({@code DefaultEurekaClientConfig}, namespace {@code eureka.}).
 *
 * <p>Environment:
 * <ul>
 * <li>SDCHAOS_EUREKA_URLS: the service URLs, comma-separated, in the order to use them
 * ({@code http://127.0.0.1:9650/eureka/,…}); set as {@code eureka.serviceUrl.default}, and the
 * client's endpoint randomizer is replaced by one that keeps this order.
 * <li>SDCHAOS_FETCH_INTERVAL: registry fetch period in whole seconds ({@code eureka.client.refresh.interval}, 30).
 * <li>SDCHAOS_APP: the app whose instances are listed and called (WORKER).
 * <li>SDCHAOS_RATE (tasks per second, 0 = fetch only), SDCHAOS_RETRIES (other instances a failed
 * task is retried on, 0), SDCHAOS_CALL_TIMEOUT (one try, Go duration, 1s), SDCHAOS_START and
 * SDCHAOS_END (RFC 3339: the first task is due at start, none at or after end), SDCHAOS_SEED (1).
 * </ul>
 * Registration is off ({@code eureka.registration.enabled=false}), fetching on. Any other client
 * property can be given as a JVM system property ({@code -Deureka.disableDelta=true}); those
 * set here are only defaults.
 *
 * <p>Output, on stdout, one JSON object per line: a fetch line per registry fetch (the first
 * inside the client's constructor, {@code "initial":true}; see {@link FetchLog}) and a task line
 * per task (see {@link Dispatcher}). The client's own log goes to stderr. It runs until killed.
 */
public final class ClientMain {

	private ClientMain() {
	}

	/** Runs the scheduler. */
	public static void main(String[] args) throws Exception {
		Settings s = Settings.from(System.getenv());
		defaults(s);
		MyDataCenterInstanceConfig ic = new MyDataCenterInstanceConfig();
		ApplicationInfoManager aim = new ApplicationInfoManager(ic, new EurekaConfigBasedInstanceInfoProvider(ic).get());
		AtomicReference<DiscoveryClient> client = new AtomicReference<>();
		FetchLog log = new FetchLog(() -> ids(client.get(), s.app));
		Jersey3DiscoveryClientOptionalArgs opt = new Jersey3DiscoveryClientOptionalArgs();
		opt.setEventListeners(Set.of(log));
		log.begin();
		client.set(new ObservedDiscoveryClient(aim, new DefaultEurekaClientConfig(), new RecordingTransport(log), opt,
				new InOrder(), log));
		log.end();
		if (s.rate > 0) {
			new Dispatcher(s, () -> instances(client.get(), s.app)).run();
		}
		Thread.sleep(Long.MAX_VALUE);
	}

	/** Sets the client's properties this program depends on, unless given as -D. */
	private static void defaults(Settings s) {
		setDefault("eureka.serviceUrl.default", s.urls);
		setDefault("eureka.client.refresh.interval", Integer.toString(s.fetchSeconds));
		setDefault("eureka.registration.enabled", "false");
		setDefault("eureka.shouldFetchRegistry", "true");
		setDefault("eureka.name", "SCHEDULER");
		setDefault("eureka.vipAddress", "scheduler");
	}

	private static void setDefault(String key, String value) {
		if (System.getProperty(key) == null) {
			System.setProperty(key, value);
		}
	}

	/** Returns the client's current instances of app (its shuffled, UP-only list), or none. */
	static List<InstanceInfo> instances(DiscoveryClient c, String app) {
		Application a = c == null ? null : c.getApplication(app);
		return a == null ? List.of() : a.getInstances();
	}

	private static List<String> ids(DiscoveryClient c, String app) {
		List<String> out = new ArrayList<>();
		for (InstanceInfo in : instances(c, app)) {
			out.add(in.getId());
		}
		out.sort(null);
		return out;
	}
}
