package sdchaos.eurekaclient;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The program's settings, from the environment (see {@link ClientMain} for the list), checked
 * once at start: a bad value stops the program with a message naming the variable.
 */
final class Settings {
	final String urls, app;
	final int fetchSeconds, retries;
	final double rate;
	final Duration callTimeout;
	final Instant start, end;
	final long seed;

	private Settings(Map<String, String> env) {
		urls = required(env, "SDCHAOS_EUREKA_URLS");
		app = env.getOrDefault("SDCHAOS_APP", "WORKER");
		fetchSeconds = Integer.parseInt(env.getOrDefault("SDCHAOS_FETCH_INTERVAL", "30"));
		rate = Double.parseDouble(env.getOrDefault("SDCHAOS_RATE", "0"));
		retries = Integer.parseInt(env.getOrDefault("SDCHAOS_RETRIES", "0"));
		callTimeout = goDuration(env.getOrDefault("SDCHAOS_CALL_TIMEOUT", "1s"));
		start = env.containsKey("SDCHAOS_START") ? Instant.parse(env.get("SDCHAOS_START")) : Instant.now();
		end = env.containsKey("SDCHAOS_END") ? Instant.parse(env.get("SDCHAOS_END")) : null;
		seed = Long.parseLong(env.getOrDefault("SDCHAOS_SEED", "1"));
		if (fetchSeconds < 1 || rate < 0 || retries < 0) {
			throw new IllegalArgumentException("SDCHAOS_FETCH_INTERVAL (" + fetchSeconds + ") must be >= 1, SDCHAOS_RATE ("
					+ rate + ") and SDCHAOS_RETRIES (" + retries + ") >= 0");
		}
	}

	/** Reads the settings from env. */
	static Settings from(Map<String, String> env) {
		return new Settings(env);
	}

	private static String required(Map<String, String> env, String key) {
		String v = env.get(key);
		if (v == null || v.isBlank()) {
			throw new IllegalArgumentException(key + " must be set (comma-separated Eureka service URLs)");
		}
		return v;
	}

	private static final Pattern GO_DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

	/** Parses the Go durations the harness passes ("1s", "500ms", "1.5s", "2m"). */
	static Duration goDuration(String v) {
		Matcher m = GO_DURATION.matcher(v);
		if (!m.matches()) {
			throw new IllegalArgumentException("SDCHAOS_CALL_TIMEOUT (" + v + ") must be a duration like 500ms or 1s");
		}
		double n = Double.parseDouble(m.group(1));
		double ms = switch (m.group(2)) {
			case "ms" -> n;
			case "s" -> n * 1000;
			default -> n * 60000;
		};
		return Duration.ofMillis((long) ms);
	}
}
