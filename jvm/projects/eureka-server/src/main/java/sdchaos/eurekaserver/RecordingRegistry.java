package sdchaos.eurekaserver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.netflix.appinfo.ApplicationInfoManager;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.appinfo.LeaseInfo;
import com.netflix.discovery.EurekaClient;
import com.netflix.discovery.EurekaClientConfig;
import com.netflix.discovery.shared.Application;
import com.netflix.eureka.EurekaServerConfig;
import com.netflix.eureka.resources.ServerCodecs;
import com.netflix.eureka.transport.EurekaServerHttpClientFactory;

import org.springframework.cloud.netflix.eureka.server.InstanceRegistry;

/**
 * Spring Cloud Netflix's own registry ({@link InstanceRegistry}, over Netflix's
 * {@code PeerAwareInstanceRegistryImpl}) with recording around the real methods: every
 * override calls the real one and only records what it did. No rule is changed.
 *
 * <p>How each record is told apart (read in eureka-core 2.0.6):
 * <ul>
 * <li>register: the client/replication path is {@code register(info, isReplication)}, which
 * calls the 3-argument register non-virtually; the start-up sync calls the 3-argument one.
 * <li>cancel: {@code cancel()} is what a client's DELETE (or its replication) calls;
 * {@code evict()} removes leases through {@code internalCancel()} directly, so an
 * {@code internalCancel} inside {@link #evict(long)} is an eviction.
 * <li>eviction runs: {@code EvictionTask} calls {@code evict(compensationMs)}; the state is
 * read just before the real evict runs, the expired count from the leases' renewal timestamps
 * as {@code getApplications()} publishes them (the same test as {@code Lease.isExpired}).
 * <li>threshold-update runs: {@code updateRenewalThreshold()} is private and runs on the timer
 * thread {@value #UPDATER_THREAD}; on that thread it calls {@code isRegisterable} per instance
 * of the embedded client's view, then {@code updateRenewsPerMinThreshold} if it adopts the
 * count, else {@code isSelfPreservationModeEnabled} (which answers true). Those calls on that
 * thread are the run.
 * </ul>
 */
public class RecordingRegistry extends InstanceRegistry {

	/** The name of PeerAwareInstanceRegistryImpl's renewal-threshold timer thread. */
	static final String UPDATER_THREAD = "ReplicaAwareInstanceRegistry - RenewalThresholdUpdater";

	private final EventLog log;
	private final ThreadLocal<List<String>> evicting = new ThreadLocal<>();
	private final AtomicLong renewals = new AtomicLong(), replicatedRenewals = new AtomicLong();
	private int updaterCount; // instances counted by the current threshold-update run (its thread only)
	private volatile long openedWallMs, openedMonoMs;

	/** Creates the registry with InstanceRegistry's arguments and the log to record into. */
	public RecordingRegistry(EurekaServerConfig serverConfig, EurekaClientConfig clientConfig,
			ServerCodecs serverCodecs, EurekaClient eurekaClient, EurekaServerHttpClientFactory httpClientFactory,
			int expectedNumberOfClientsSendingRenews, int defaultOpenForTrafficCount, EventLog log) {
		super(serverConfig, clientConfig, serverCodecs, eurekaClient, httpClientFactory,
				expectedNumberOfClientsSendingRenews, defaultOpenForTrafficCount);
		this.log = log;
	}

	@Override
	public void openForTraffic(ApplicationInfoManager manager, int count) {
		super.openForTraffic(manager, count);
		openedWallMs = EventLog.wallMs();
		openedMonoMs = EventLog.monoMs();
		log.event(EventLog.OPEN, "", false, false, expectedNumberOfClientsSendingRenews);
	}

	@Override
	public void register(InstanceInfo info, boolean isReplication) {
		boolean created = getInstanceByAppAndId(info.getAppName(), info.getId(), false) == null;
		super.register(info, isReplication);
		log.event(EventLog.REGISTER, key(info.getAppName(), info.getId()), isReplication, created, 0);
	}

	@Override
	public void register(InstanceInfo info, int leaseDuration, boolean isReplication) {
		boolean created = getInstanceByAppAndId(info.getAppName(), info.getId(), false) == null;
		super.register(info, leaseDuration, isReplication);
		log.event(EventLog.REGISTER, key(info.getAppName(), info.getId()), isReplication, created, 0);
	}

	@Override
	public boolean cancel(String appName, String id, boolean isReplication) {
		boolean ok = super.cancel(appName, id, isReplication);
		if (ok) {
			log.event(EventLog.CANCEL, key(appName, id), isReplication, false, 0);
		}
		return ok;
	}

	@Override
	protected boolean internalCancel(String appName, String id, boolean isReplication) {
		boolean ok = super.internalCancel(appName, id, isReplication);
		List<String> evicted = evicting.get();
		if (ok && evicted != null) {
			evicted.add(key(appName, id));
			log.event(EventLog.EVICT, key(appName, id), false, false, 0);
		}
		return ok;
	}

	@Override
	public boolean renew(String appName, String id, boolean isReplication) {
		boolean ok = super.renew(appName, id, isReplication);
		if (!ok) {
			log.event(EventLog.RENEW_UNKNOWN, key(appName, id), isReplication, false, 0);
		}
		else {
			(isReplication ? replicatedRenewals : renewals).incrementAndGet();
		}
		return ok;
	}

	@Override
	public void evict(long additionalLeaseMs) {
		long wall = EventLog.wallMs(), mono = EventLog.monoMs();
		long renews = getNumOfRenewsInLastMin();
		int threshold = getNumOfRenewsPerMinThreshold(), expected = expectedNumberOfClientsSendingRenews;
		boolean enabled = isLeaseExpirationEnabled();
		int size = (int) getLocalRegistrySize();
		int would = countExpired(additionalLeaseMs);
		int limit = size - (int) (size * serverConfig.getRenewalPercentThreshold());
		List<String> evicted = new ArrayList<>();
		evicting.set(evicted);
		try {
			super.evict(additionalLeaseMs);
		}
		finally {
			evicting.remove();
		}
		log.eviction(new EventLog.EvictionRun(wall, mono, renews, threshold, expected, enabled, size,
				enabled ? would : 0, enabled ? limit : 0, would, evicted, additionalLeaseMs));
	}

	/** Counts the leases Lease.isExpired(additional) would call expired, from the published lease info. */
	private int countExpired(long additionalLeaseMs) {
		long now = System.currentTimeMillis();
		int n = 0;
		for (Application app : getApplications().getRegisteredApplications()) {
			for (InstanceInfo in : app.getInstancesAsIsFromEureka()) {
				LeaseInfo li = in.getLeaseInfo();
				if (li != null && (li.getEvictionTimestamp() > 0
						|| now > li.getRenewalTimestamp() + li.getDurationInSecs() * 1000L + additionalLeaseMs)) {
					n++;
				}
			}
		}
		return n;
	}

	@Override
	public boolean isRegisterable(InstanceInfo info) {
		boolean ok = super.isRegisterable(info);
		if (ok && onUpdater()) {
			updaterCount++;
		}
		return ok;
	}

	@Override
	protected void updateRenewsPerMinThreshold() {
		super.updateRenewsPerMinThreshold();
		if (onUpdater()) {
			thresholdRun(true);
		}
	}

	@Override
	public boolean isSelfPreservationModeEnabled() {
		boolean on = super.isSelfPreservationModeEnabled();
		if (on && onUpdater()) { // the update declined the count
			thresholdRun(false);
		}
		return on;
	}

	private void thresholdRun(boolean adopted) {
		log.threshold(new EventLog.ThresholdRun(EventLog.wallMs(), EventLog.monoMs(), updaterCount, adopted,
				expectedNumberOfClientsSendingRenews, numberOfRenewsPerMinThreshold));
		updaterCount = 0;
	}

	private static boolean onUpdater() {
		return UPDATER_THREAD.equals(Thread.currentThread().getName());
	}

	private static String key(String app, String id) {
		return app + "/" + id;
	}

	/** Returns expectedNumberOfClientsSendingRenews (a protected field of the real registry). */
	public int expectedClients() {
		return expectedNumberOfClientsSendingRenews;
	}

	/** Returns the renewals this server accepted from clients (not replicated) since it started. */
	public long renewals() {
		return renewals.get();
	}

	/** Returns the replicated renewals this server accepted since it started. */
	public long replicatedRenewals() {
		return replicatedRenewals.get();
	}

	/** Returns the wall-clock ms when the registry opened for traffic (0 before). */
	public long openedWallMs() {
		return openedWallMs;
	}

	/** Returns the monotonic ms when the registry opened for traffic (0 before). */
	public long openedMonoMs() {
		return openedMonoMs;
	}
}
