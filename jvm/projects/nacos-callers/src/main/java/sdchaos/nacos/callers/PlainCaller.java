package sdchaos.nacos.callers;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import java.time.Instant;
import java.util.Properties;

/**
 * The official nacos-client alone: subscribes to the service, and for each call asks
 * {@code selectOneHealthyInstance} (the client's own weighted-random choice over its cached list).
 */
final class PlainCaller {

    private PlainCaller() {
    }

    /** Builds the NamingService with s's switches and calls until the end. */
    static void run(Settings s) throws Exception {
        NamingService naming = NamingFactory.createNamingService(properties(s));
        Setup.retry(s, "subscribing", () -> naming.subscribe(s.service(), event -> {
            if (event instanceof NamingEvent e) {
                Lines.instances(e.getInstances().size());
            }
        }));
        HttpProbe probe = new HttpProbe(s.callTimeout());
        warmUp(naming, probe, s.service());
        Settings run = s.whenReady();
        Lines.started("plain nacos-client " + s.describe());
        Pacer.run(run, due -> {
            Instant start = Instant.now();
            Instance pick;
            try {
                pick = naming.selectOneHealthyInstance(s.service());
            } catch (NacosException e) {
                // the client's request to the server failed (not connected, no answer)
                HttpProbe.failed(due, start, e, ErrClass.REGISTRY);
                return;
            } catch (IllegalStateException e) {
                // Balancer: "no host to srv for serviceInfo" (the client's list is empty)
                HttpProbe.failed(due, start, e, ErrClass.NO_INSTANCE);
                return;
            } catch (Exception e) {
                HttpProbe.failed(due, start, e, ErrClass.OTHER);
                return;
            }
            probe.call(due, start, pick.getIp() + ":" + pick.getPort());
        });
    }

    /**
     * Warms the call path up before the first due call: one instance picked by the client (from
     * its cache, as every call does) is called a few times, unrecorded; nothing when the client
     * has no instance yet.
     */
    static void warmUp(NamingService naming, HttpProbe probe, String service) {
        try {
            Instance pick = naming.selectOneHealthyInstance(service);
            probe.warmUp(pick.getIp() + ":" + pick.getPort());
        } catch (Exception e) {
            // no instance to warm up with: the first calls pay for it
        }
    }

    /** The client's properties: server, and the two switches the article names. */
    static Properties properties(Settings s) {
        Properties p = new Properties();
        p.setProperty(PropertyKeyConst.SERVER_ADDR, s.server());
        p.setProperty(PropertyKeyConst.NAMING_LOAD_CACHE_AT_START, String.valueOf(s.loadCacheAtStart()));
        p.setProperty(PropertyKeyConst.NAMING_PUSH_EMPTY_PROTECTION, String.valueOf(s.pushEmptyProtection()));
        return p;
    }
}
