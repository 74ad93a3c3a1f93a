package sdchaos.nacos.callers;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * With sdchaos.stale-fallback=true, every load-balancer client's list supplier is LoadBalancer's
 * default chain here (the blocking discovery client, then LoadBalancer's cache: this application
 * has no reactive discovery client) wrapped in {@link StaleFallbackSupplier}; otherwise this adds
 * nothing and LoadBalancer's defaults stand. Not a {@code @Configuration}: LoadBalancer builds it
 * into each client's own context, and component scanning must not pick it up.
 */
public class StaleFallbackConfiguration {

    /** The default chain with the fallback on top. */
    @Bean
    @ConditionalOnProperty(name = "sdchaos.stale-fallback", havingValue = "true")
    public ServiceInstanceListSupplier staleFallbackSupplier(ConfigurableApplicationContext ctx) {
        return new StaleFallbackSupplier(
                ServiceInstanceListSupplier.builder().withBlockingDiscoveryClient().withCaching().build(ctx));
    }
}
