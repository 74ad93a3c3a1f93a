package sdchaos.nacos.callers;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With sdchaos.stale-fallback=true, every load-balancer client's list supplier is LoadBalancer's
 * default chain (discovery client, then its cache) wrapped in {@link StaleFallbackSupplier};
 * otherwise this adds nothing and LoadBalancer's defaults stand.
 */
@Configuration(proxyBeanMethods = false)
public class StaleFallbackConfiguration {

    /** The default chain with the fallback on top. */
    @Bean
    @ConditionalOnProperty(name = "sdchaos.stale-fallback", havingValue = "true")
    public ServiceInstanceListSupplier staleFallbackSupplier(ConfigurableApplicationContext ctx) {
        return new StaleFallbackSupplier(
                ServiceInstanceListSupplier.builder().withDiscoveryClient().withCaching().build(ctx));
    }
}
