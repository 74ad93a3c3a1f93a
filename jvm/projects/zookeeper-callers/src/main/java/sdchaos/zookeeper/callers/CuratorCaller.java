package sdchaos.zookeeper.callers;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ProviderStrategy;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.details.ServiceCacheListener;
import org.apache.curator.x.discovery.strategies.RoundRobinStrategy;

/**
 * Apache Curator alone, as its service-discovery recipe is documented: a CuratorFramework
 * (ExponentialBackoffRetry(1000 ms, 3 retries), Curator's default session and connection timeouts
 * unless given), a ServiceDiscovery on the base path, and a ServiceCache of the service; each call
 * takes an instance from the cache with Curator's RoundRobinStrategy and calls it. The cache keeps
 * its list while the client is disconnected; a call fails only when the cache holds no instance
 * or the instance does not answer.
 */
final class CuratorCaller {

    /** How long the caller waits for its first connection. */
    private static final long CONNECT_WAIT_SECONDS = 60;

    private CuratorCaller() {
    }

    /** Builds the client, the discovery and the cache, and calls until the end. */
    static void run(Settings s) throws Exception {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder().connectString(s.connect())
                .retryPolicy(new ExponentialBackoffRetry(1000, 3));
        if (s.sessionTimeout() != null) {
            b.sessionTimeoutMs((int) s.sessionTimeout().toMillis());
        }
        if (s.connectionTimeout() != null) {
            b.connectionTimeoutMs((int) s.connectionTimeout().toMillis());
        }
        CuratorFramework client = b.build();
        client.getConnectionStateListenable().addListener((c, state) -> Lines.connection(state.name()));
        client.start();
        if (!client.blockUntilConnected((int) CONNECT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + s.connect() + " within " + CONNECT_WAIT_SECONDS + " s");
        }
        ServiceDiscovery<Object> discovery = ServiceDiscoveryBuilder.builder(Object.class).client(client)
                .basePath(s.basePath()).build();
        discovery.start();
        ServiceCache<Object> cache = discovery.serviceCacheBuilder().name(s.service()).build();
        cache.addListener(new ServiceCacheListener() {
            @Override
            public void cacheChanged() {
                Lines.instances(cache.getInstances().size());
            }

            @Override
            public void stateChanged(CuratorFramework c, ConnectionState state) {
                // printed by the client's own listener above
            }
        });
        cache.start();
        Lines.instances(cache.getInstances().size());
        ProviderStrategy<Object> strategy = new RoundRobinStrategy<>();
        HttpProbe probe = new HttpProbe(s.callTimeout());
        ServiceInstance<Object> first = strategy.getInstance(cache);
        if (first != null) {
            probe.warmUp(target(first));
        }
        Settings run = s.whenReady();
        Lines.started("curator " + s.describe());
        Pacer.run(run, due -> call(strategy, cache, probe, due));
        cache.close();
        discovery.close();
        client.close();
    }

    private static void call(ProviderStrategy<Object> strategy, ServiceCache<Object> cache, HttpProbe probe, Instant due) {
        Instant start = Instant.now();
        ServiceInstance<Object> pick;
        try {
            pick = strategy.getInstance(cache);
        } catch (Exception e) {
            HttpProbe.failed(due, start, e);
            return;
        }
        if (pick == null) {
            HttpProbe.failed(due, start, new IllegalStateException("no instance in the ServiceCache"));
            return;
        }
        probe.call(due, start, target(pick));
    }

    private static String target(ServiceInstance<Object> instance) {
        return instance.getAddress() + ":" + instance.getPort();
    }
}
