package sdchaos.eurekaserver;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import org.springframework.stereotype.Component;

/**
 * What the registry recorded, in the order it happened. Every entry carries the server's wall
 * clock ({@code System.currentTimeMillis()}, what leases use; a stepped clock moves it) and
 * its monotonic clock ({@code System.nanoTime()} in ms, CLOCK_MONOTONIC on Linux: shared by
 * every process of the host and never stepped), so a clock step can be told apart.
 * Renewals are counted, not logged. Thread-safe.
 */
@Component
public class EventLog {

	/** Event kinds (the Go model's names, eureka/history.go). */
	static final String REGISTER = "register", CANCEL = "cancel", EVICT = "evict", RENEW_UNKNOWN = "renew-unknown",
			OPEN = "open";

	/** A registry change. */
	public record Event(long seq, @JsonProperty("wall_ms") long wallMs, @JsonProperty("mono_ms") long monoMs,
			String kind, String id, boolean replicated, @JsonProperty("new") boolean created,
			@JsonProperty("count") int count) {
	}

	/** One run of the eviction task, read just before the real evict ran. */
	public record EvictionRun(@JsonProperty("wall_ms") long wallMs, @JsonProperty("mono_ms") long monoMs,
			@JsonProperty("renews_last_min") long renewsLastMin, int threshold, int expected, boolean enabled,
			int size, int expired, int limit, @JsonProperty("would_expire") int wouldExpire,
			List<String> evicted, @JsonProperty("compensation_ms") long compensationMs) {
	}

	/** One run of the renewal-threshold update task. */
	public record ThresholdRun(@JsonProperty("wall_ms") long wallMs, @JsonProperty("mono_ms") long monoMs,
			int count, boolean adopted, int expected, int threshold) {
	}

	/** Everything recorded so far. */
	public record Snapshot(List<Event> events, List<EvictionRun> evictions, List<ThresholdRun> thresholds) {
	}

	private final List<Event> events = new ArrayList<>();
	private final List<EvictionRun> evictions = new ArrayList<>();
	private final List<ThresholdRun> thresholds = new ArrayList<>();

	/** Returns the wall clock in ms. */
	static long wallMs() {
		return System.currentTimeMillis();
	}

	/** Returns the monotonic clock in ms. */
	static long monoMs() {
		return System.nanoTime() / 1_000_000L;
	}

	/** Records a registry change. */
	synchronized void event(String kind, String id, boolean replicated, boolean created, int count) {
		events.add(new Event(events.size() + 1, wallMs(), monoMs(), kind, id, replicated, created, count));
	}

	/** Records an eviction run. */
	synchronized void eviction(EvictionRun run) {
		evictions.add(run);
	}

	/** Records a threshold-update run. */
	synchronized void threshold(ThresholdRun run) {
		thresholds.add(run);
	}

	/** Returns a copy of everything recorded. */
	synchronized Snapshot snapshot() {
		return new Snapshot(List.copyOf(events), List.copyOf(evictions), List.copyOf(thresholds));
	}
}
