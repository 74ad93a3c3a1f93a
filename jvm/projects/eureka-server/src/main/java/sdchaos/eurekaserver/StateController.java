package sdchaos.eurekaserver;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.discovery.shared.Application;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The harness's read-only view of the real registry: {@code GET /sdchaos/state} (its numbers,
 * read through the registry's own public methods at the moment of the request) and
 * {@code GET /sdchaos/events} (what {@link RecordingRegistry} recorded). JSON only.
 */
@RestController
public class StateController {

	private final RecordingRegistry registry;
	private final EventLog log;
	private final String name;

	/** Creates the controller; name is the harness's label of this server (--sdchaos.name). */
	public StateController(RecordingRegistry registry, EventLog log, @Value("${sdchaos.name:}") String name) {
		this.registry = registry;
		this.log = log;
		this.name = name;
	}

	/** The registry's state at one instant. */
	public record State(String server, @JsonProperty("wall_ms") long wallMs, @JsonProperty("mono_ms") long monoMs,
			@JsonProperty("uptime_ms") long uptimeMs, @JsonProperty("opened_wall_ms") long openedWallMs,
			@JsonProperty("opened_mono_ms") long openedMonoMs, @JsonProperty("renews_last_min") long renewsLastMin,
			int threshold, int expected, @JsonProperty("lease_expiration_enabled") boolean leaseExpirationEnabled,
			@JsonProperty("self_preservation_enabled") boolean selfPreservationEnabled,
			@JsonProperty("below_renew_threshold") boolean belowRenewThreshold, int size, List<String> ids,
			long renewals, @JsonProperty("replicated_renewals") long replicatedRenewals,
			@JsonProperty("replications_last_min") long replicationsLastMin) {
	}

	/** Everything recorded, with the clocks at the moment of the request. */
	public record Events(String server, @JsonProperty("wall_ms") long wallMs, @JsonProperty("mono_ms") long monoMs,
			List<EventLog.Event> events, List<EventLog.EvictionRun> evictions,
			List<EventLog.ThresholdRun> thresholds) {
	}

	/** Serves the registry's numbers. */
	@GetMapping(path = "/sdchaos/state", produces = "application/json")
	public State state() {
		long wall = EventLog.wallMs(), mono = EventLog.monoMs();
		return new State(name, wall, mono, ManagementFactory.getRuntimeMXBean().getUptime(),
				registry.openedWallMs(), registry.openedMonoMs(), registry.getNumOfRenewsInLastMin(),
				registry.getNumOfRenewsPerMinThreshold(), registry.expectedClients(),
				registry.isLeaseExpirationEnabled(), registry.isSelfPreservationModeEnabled(),
				registry.isBelowRenewThresold() == 1, (int) registry.getLocalRegistrySize(), ids(),
				registry.renewals(), registry.replicatedRenewals(), registry.getNumOfReplicationsInLastMin());
	}

	/** Serves what the registry recorded. */
	@GetMapping(path = "/sdchaos/events", produces = "application/json")
	public Events events() {
		long wall = EventLog.wallMs(), mono = EventLog.monoMs();
		EventLog.Snapshot s = log.snapshot();
		return new Events(name, wall, mono, s.events(), s.evictions(), s.thresholds());
	}

	private List<String> ids() {
		List<String> out = new ArrayList<>();
		for (Application app : registry.getSortedApplications()) {
			for (InstanceInfo in : app.getInstancesAsIsFromEureka()) {
				out.add(app.getName() + "/" + in.getId());
			}
		}
		return out;
	}
}
