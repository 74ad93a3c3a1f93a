package sdchaos.nacos.callers;

import java.util.HashMap;
import java.util.Map;

/** The Spring properties of a caller: Spring Cloud Alibaba's names for the settings. */
final class SpringProps {

    private SpringProps() {
    }

    /** Maps s to spring.cloud.nacos.discovery.* (anything there is passed to the Nacos client). */
    static Map<String, Object> of(Settings s) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.main.web-application-type", "none");
        p.put("spring.main.banner-mode", "off");
        p.put("spring.application.name", "sdchaos-caller");
        p.put("spring.cloud.nacos.discovery.server-addr", s.server());
        p.put("spring.cloud.nacos.discovery.register-enabled", "false");
        p.put("spring.cloud.nacos.discovery.naming-load-cache-at-start", String.valueOf(s.loadCacheAtStart()));
        p.put("spring.cloud.nacos.discovery.naming-push-empty-protection", String.valueOf(s.pushEmptyProtection()));
        p.put("spring.cloud.nacos.config.enabled", "false");
        // LoadBalancer builds each client's child context on its first call (a second or two of
        // class loading on a shared machine, during which every due call waits): build it at
        // start instead. Nothing else changes: the list is still fetched, and cached for 35 s,
        // from the first call on.
        p.put("spring.cloud.loadbalancer.eager-load.clients", s.service());
        p.put("sdchaos.stale-fallback", String.valueOf(s.staleFallback()));
        return p;
    }
}
