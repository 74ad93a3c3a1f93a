package sdchaos.eurekaclient;

import java.util.Collection;
import java.util.Optional;

import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLContext;

import com.netflix.appinfo.InstanceInfo;
import com.netflix.discovery.EurekaClientConfig;
import com.netflix.discovery.shared.resolver.EurekaEndpoint;
import com.netflix.discovery.shared.transport.EurekaHttpClient;
import com.netflix.discovery.shared.transport.EurekaHttpResponse;
import com.netflix.discovery.shared.transport.TransportClientFactory;
import com.netflix.discovery.shared.transport.decorator.EurekaHttpClientDecorator;
import com.netflix.discovery.shared.transport.jersey.TransportClientFactories;
import com.netflix.discovery.shared.transport.jersey3.Jersey3TransportClientFactories;

import jakarta.ws.rs.client.ClientRequestFilter;

/**
 * Netflix's Jersey 3 transport with a recorder at the bottom of the stack: every HTTP request
 * of a registry fetch, on the server it went to, is reported to the {@link FetchLog} with its
 * status or exception. Above it the client's own RetryableEurekaHttpClient (sticky server,
 * quarantine, 3 attempts) and session layers run unchanged.
 */
final class RecordingTransport implements TransportClientFactories<ClientRequestFilter> {

	private final Jersey3TransportClientFactories real = Jersey3TransportClientFactories.getInstance();
	private final FetchLog log;

	/** Creates the transport reporting to log. */
	RecordingTransport(FetchLog log) {
		this.log = log;
	}

	@Override
	public TransportClientFactory newTransportClientFactory(EurekaClientConfig config,
			Collection<ClientRequestFilter> filters, InstanceInfo info) {
		return wrap(real.newTransportClientFactory(config, filters, info));
	}

	@Override
	public TransportClientFactory newTransportClientFactory(EurekaClientConfig config,
			Collection<ClientRequestFilter> filters, InstanceInfo info, Optional<SSLContext> ssl,
			Optional<HostnameVerifier> verifier) {
		return wrap(real.newTransportClientFactory(config, filters, info, ssl, verifier));
	}

	private TransportClientFactory wrap(TransportClientFactory f) {
		return new TransportClientFactory() {
			@Override
			public EurekaHttpClient newClient(EurekaEndpoint endpoint) {
				return new Recorder(f.newClient(endpoint), endpoint.getServiceUrl());
			}

			@Override
			public void shutdown() {
				f.shutdown();
			}
		};
	}

	/** Reports each fetch request of one server's HTTP client. */
	private final class Recorder extends EurekaHttpClientDecorator {
		private final EurekaHttpClient delegate;
		private final String server;

		Recorder(EurekaHttpClient delegate, String server) {
			this.delegate = delegate;
			this.server = server;
		}

		@Override
		protected <R> EurekaHttpResponse<R> execute(RequestExecutor<R> executor) {
			String kind = switch (executor.getRequestType()) {
				case GetApplications -> "full";
				case GetDelta -> "delta";
				default -> null;
			};
			try {
				EurekaHttpResponse<R> r = executor.execute(delegate);
				if (kind != null) {
					log.attempt(server, kind, r.getStatusCode(), null);
				}
				return r;
			}
			catch (RuntimeException e) {
				if (kind != null) {
					log.attempt(server, kind, 0, e.toString());
				}
				throw e;
			}
		}

		@Override
		public void shutdown() {
			delegate.shutdown();
		}
	}
}
