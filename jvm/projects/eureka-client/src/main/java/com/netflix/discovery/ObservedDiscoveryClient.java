package com.netflix.discovery;

import com.netflix.appinfo.ApplicationInfoManager;
import com.netflix.discovery.shared.resolver.EndpointRandomizer;
import com.netflix.discovery.shared.transport.jersey.TransportClientFactories;

/**
 * Netflix's own {@link DiscoveryClient}, unchanged, except that each periodic registry fetch
 * is bracketed so the harness can print one line per fetch, failed ones included.
 *
 * <p>It lives in Netflix's package because the hook is package-private: the client's
 * {@code CacheRefreshThread} calls {@code refreshRegistry()}, which calls the private
 * {@code fetchRegistry()} and keeps the old registry when it fails (eureka-client 2.0.6,
 * DiscoveryClient.java). Overriding {@code refreshRegistry} is the only place where a fetch's
 * start and end are both visible without changing what it does. The first fetch, inside the
 * constructor, calls {@code fetchRegistry} directly; the caller brackets the constructor.
 */
public class ObservedDiscoveryClient extends DiscoveryClient {

	/** Receives the start and end of every periodic fetch. */
	public interface FetchBrackets {
		/** Called before a periodic fetch. */
		void begin();

		/** Called after it, whatever its outcome. */
		void end();
	}

	private static volatile FetchBrackets brackets;

	/**
	 * Creates the client with DiscoveryClient's public five-argument constructor; brackets
	 * must be set first (the constructor starts the fetch timer).
	 */
	public ObservedDiscoveryClient(ApplicationInfoManager manager, EurekaClientConfig config,
			TransportClientFactories<?> factories, AbstractDiscoveryClientOptionalArgs<?> args,
			EndpointRandomizer randomizer, FetchBrackets fetchBrackets) {
		super(init(manager, fetchBrackets), config, factories, args, randomizer);
	}

	private static ApplicationInfoManager init(ApplicationInfoManager manager, FetchBrackets b) {
		brackets = b;
		return manager;
	}

	@Override
	void refreshRegistry() {
		FetchBrackets b = brackets;
		b.begin();
		try {
			super.refreshRegistry();
		}
		finally {
			b.end();
		}
	}
}
