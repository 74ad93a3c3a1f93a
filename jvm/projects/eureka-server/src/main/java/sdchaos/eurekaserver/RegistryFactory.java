package sdchaos.eurekaserver;

import com.netflix.discovery.EurekaClient;
import com.netflix.discovery.EurekaClientConfig;
import com.netflix.eureka.EurekaServerConfig;
import com.netflix.eureka.resources.ServerCodecs;
import com.netflix.eureka.transport.EurekaServerHttpClientFactory;

import org.springframework.cloud.netflix.eureka.server.InstanceRegistryProperties;
import org.springframework.stereotype.Component;

/**
 * Builds the registry exactly as {@code EurekaServerAutoConfiguration.peerAwareInstanceRegistry}
 * does (forces the embedded client's initialization, then passes the same beans and
 * {@code eureka.instance.registry.*} properties), but as a {@link RecordingRegistry}.
 */
@Component("sdchaosRegistryFactory")
public class RegistryFactory {

	private final EventLog log;

	/** Creates the factory; log receives what the registry records. */
	public RegistryFactory(EventLog log) {
		this.log = log;
	}

	/** Returns the registry bean (see {@link RegistrySwap}). */
	public RecordingRegistry registry(EurekaServerConfig serverConfig, EurekaClientConfig clientConfig,
			ServerCodecs serverCodecs, EurekaClient eurekaClient, EurekaServerHttpClientFactory httpClientFactory,
			InstanceRegistryProperties props) {
		eurekaClient.getApplications(); // force initialization, as the auto-configuration does
		return new RecordingRegistry(serverConfig, clientConfig, serverCodecs, eurekaClient, httpClientFactory,
				props.getExpectedNumberOfClientsSendingRenews(), props.getDefaultOpenForTrafficCount(), log);
	}
}
