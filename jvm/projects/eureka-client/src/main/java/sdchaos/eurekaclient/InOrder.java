package sdchaos.eurekaclient;

import java.util.ArrayList;
import java.util.List;

import com.netflix.discovery.shared.resolver.EndpointRandomizer;
import com.netflix.discovery.shared.resolver.EurekaEndpoint;

/**
 * An endpoint "randomizer" that keeps the configured order. The client's default
 * ({@code ResolverUtils::randomize}) shuffles the service URLs with a seed from the instance's
 * IP; the harness chooses each client's order itself (seeded, per run) and passes it in order.
 */
final class InOrder implements EndpointRandomizer {
	@Override
	public <T extends EurekaEndpoint> List<T> randomize(List<T> list) {
		return new ArrayList<>(list);
	}
}
