package sdchaos.eurekaclient;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import com.netflix.discovery.CacheRefreshedEvent;
import com.netflix.discovery.EurekaEvent;
import com.netflix.discovery.EurekaEventListener;
import com.netflix.discovery.ObservedDiscoveryClient;

/**
 * Collects one registry fetch (its HTTP attempts, seen by {@link RecordingTransport}, and
 * whether the client stored the result: Netflix's client fires a {@link CacheRefreshedEvent}
 * only after a fetch succeeded) and prints it as one line:
 *
 * <pre>
 * {"type":"fetch","at":"RFC 3339","at_ms":…,"mono_ms":…,"start_ms":…,"initial":false,"ok":true,
 *  "server":"http://127.0.0.1:9650/eureka/","ids":["w01",…],
 *  "attempts":[{"server":"…","kind":"full|delta","status":200,"err":"…"}]}
 * </pre>
 *
 * {@code server} is the server whose answer was stored (the last attempt, when ok). Fetches
 * run one at a time on the client's refresh thread; the methods are synchronized anyway.
 */
final class FetchLog implements EurekaEventListener, ObservedDiscoveryClient.FetchBrackets {

	private final Supplier<List<String>> ids;
	private final List<String> attempts = new ArrayList<>();
	private String lastServer = "";
	private boolean refreshed, initial = true;
	private long startMs;

	/** Creates the log; ids returns the instance ids the client now holds. */
	FetchLog(Supplier<List<String>> ids) {
		this.ids = ids;
	}

	@Override
	public synchronized void begin() {
		attempts.clear();
		lastServer = "";
		refreshed = false;
		startMs = System.currentTimeMillis();
	}

	/** Records one HTTP attempt of a fetch (status 0 with err when it threw). */
	synchronized void attempt(String server, String kind, int status, String err) {
		Json j = new Json().str("server", server).str("kind", kind).num("status", status);
		if (err != null) {
			j.str("err", err);
		}
		attempts.add(j.done());
		lastServer = server;
	}

	@Override
	public synchronized void onEvent(EurekaEvent event) {
		if (event instanceof CacheRefreshedEvent) {
			refreshed = true;
		}
	}

	@Override
	public synchronized void end() {
		long now = System.currentTimeMillis();
		Json j = new Json().str("type", "fetch").str("at", Instant.ofEpochMilli(now).toString()).num("at_ms", now)
			.num("mono_ms", System.nanoTime() / 1_000_000L).num("start_ms", startMs).bool("initial", initial)
			.bool("ok", refreshed).str("server", refreshed ? lastServer : "");
		j.strs("ids", refreshed ? ids.get() : List.of()).raw("attempts", "[" + String.join(",", attempts) + "]");
		initial = false;
		Json.print(j.done());
	}
}
