package sdchaos.eurekaclient;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.netflix.appinfo.InstanceInfo;

/**
 * A scheduler's task loop over the DiscoveryClient's cached list, as the harness's Go
 * dispatcher (caller/dispatch.go) does it: open loop at {@code rate} tasks per second from
 * {@code start}; each task takes the client's current list of the app, tries instances in a
 * seeded random order (task k of seed s: {@code new Random(s * 1000003 + k)}), never one twice,
 * up to {@code retries + 1} of them, with an HTTP GET / bounded by {@code timeout}. One line per
 * task, in the harness's exec-client protocol (docs/real-clients.md) plus the tries:
 *
 * <pre>
 * {"type":"task","seq":k,"scheduled":"RFC 3339","start":"…","end":"…","target":"w03>w07",
 *  "addr":"127.0.0.1:9661","outcome":"ok|fail|unknown","err":"…","attempts":2}
 * </pre>
 *
 * A timed-out try is "unknown" (it may have run), a refused or failed one "fail".
 */
final class Dispatcher {

	private final Settings s;
	private final Supplier<List<InstanceInfo>> instances;
	private final HttpClient http;
	private final ExecutorService pool = Executors.newFixedThreadPool(64, r -> {
		Thread t = new Thread(r, "task");
		t.setDaemon(true);
		return t;
	});

	/** Creates the loop over instances (the client's current list). */
	Dispatcher(Settings s, Supplier<List<InstanceInfo>> instances) {
		this.s = s;
		this.instances = instances;
		this.http = HttpClient.newBuilder().connectTimeout(s.callTimeout).version(HttpClient.Version.HTTP_1_1).build();
	}

	/** Sends tasks until the end time (forever without one). */
	void run() throws InterruptedException {
		for (long k = 0;; k++) {
			Instant due = s.start.plusNanos((long) (k * 1e9 / s.rate));
			if (s.end != null && !due.isBefore(s.end)) {
				return;
			}
			long wait = Duration.between(Instant.now(), due).toMillis();
			if (wait > 0) {
				Thread.sleep(wait);
			}
			final long seq = k;
			pool.execute(() -> task(seq, due));
		}
	}

	private void task(long k, Instant due) {
		Instant start = Instant.now();
		List<InstanceInfo> list = instances.get();
		List<Integer> order = new ArrayList<>();
		for (int i = 0; i < list.size(); i++) {
			order.add(i);
		}
		Collections.shuffle(order, new Random(s.seed * 1000003L + k));
		List<String> tried = new ArrayList<>();
		String outcome = "fail", err = "no instances in the client's list", addr = "";
		for (int i : order.subList(0, Math.min(order.size(), s.retries + 1))) {
			InstanceInfo in = list.get(i);
			tried.add(in.getId());
			addr = in.getIPAddr() + ":" + in.getPort();
			err = get(addr);
			if (err == null) {
				outcome = "ok";
				break;
			}
			outcome = err.startsWith("timeout") ? "unknown" : "fail";
		}
		Json j = new Json().str("type", "task").num("seq", k).str("scheduled", due.toString())
			.str("start", start.toString()).str("end", Instant.now().toString()).str("target", String.join(">", tried))
			.str("addr", addr).str("outcome", outcome).num("attempts", tried.size());
		if (err != null) {
			j.str("err", err);
		}
		Json.print(j.done());
	}

	/** GETs http://addr/ and returns null on a 200, else the error ("timeout: …" for a timeout). */
	private String get(String addr) {
		try {
			HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + addr + "/")).timeout(s.callTimeout).build();
			HttpResponse<Void> resp = http.send(req, HttpResponse.BodyHandlers.discarding());
			return resp.statusCode() == 200 ? null : "status " + resp.statusCode();
		}
		catch (HttpTimeoutException e) {
			return "timeout: " + e.getMessage();
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
		catch (Exception e) {
			return e.toString();
		}
	}
}
