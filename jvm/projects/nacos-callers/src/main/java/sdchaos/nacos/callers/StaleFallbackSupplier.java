package sdchaos.nacos.callers;

import java.util.List;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.DelegatingServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import reactor.core.publisher.Flux;

/**
 * The article's second remedy: when the list below is empty, answer the last non-empty one.
 */
final class StaleFallbackSupplier extends DelegatingServiceInstanceListSupplier {

    private volatile List<ServiceInstance> last = List.of();

    StaleFallbackSupplier(ServiceInstanceListSupplier delegate) {
        super(delegate);
    }

    @Override
    public Flux<List<ServiceInstance>> get() {
        return getDelegate().get().map(this::orLast);
    }

    private List<ServiceInstance> orLast(List<ServiceInstance> list) {
        if (list.isEmpty()) {
            return last;
        }
        last = list;
        return list;
    }
}
