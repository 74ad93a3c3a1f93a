package sdchaos.zookeeper.callers;

import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The caller's settings, read from the environment (see {@link Main}). */
record Settings(String connect, String basePath, String service, double rate, Instant start, Instant end,
        Duration callTimeout, Duration sessionTimeout, Duration connectionTimeout) {

    private static final Pattern GO_DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    /** Reads every SDCHAOS_ variable; a missing required one is an error naming it. */
    static Settings fromEnv() {
        String start = env("SDCHAOS_START", "");
        return new Settings(required("SDCHAOS_ZK_CONNECT"), env("SDCHAOS_ZK_BASE_PATH", "/services"),
                required("SDCHAOS_SERVICE"), Double.parseDouble(env("SDCHAOS_RATE", "40")),
                start.isEmpty() ? null : Instant.parse(start), Instant.parse(required("SDCHAOS_END")),
                goDuration(env("SDCHAOS_CALL_TIMEOUT", "1s")), optional("SDCHAOS_ZK_SESSION_TIMEOUT"),
                optional("SDCHAOS_ZK_CONNECTION_TIMEOUT"));
    }

    /** These settings with the calls' start set to t when SDCHAOS_START was empty. */
    Settings startingAt(Instant t) {
        return start != null ? this
                : new Settings(connect, basePath, service, rate, t, end, callTimeout, sessionTimeout, connectionTimeout);
    }

    /** A one-line summary for the started event: the timeouts given, or "default". */
    String describe() {
        return "sessionTimeout=" + (sessionTimeout == null ? "default" : sessionTimeout.toMillis() + "ms")
                + " connectionTimeout=" + (connectionTimeout == null ? "default" : connectionTimeout.toMillis() + "ms");
    }

    private static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null ? def : v.trim();
    }

    private static String required(String name) {
        String v = env(name, "");
        if (v.isEmpty()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return v;
    }

    private static Duration optional(String name) {
        String v = env(name, "");
        return v.isEmpty() ? null : goDuration(v);
    }

    /** Parses a Go duration such as 500ms, 1s or 1m30s. */
    static Duration goDuration(String s) {
        Matcher m = GO_DURATION.matcher(s);
        double nanos = 0;
        int end = 0;
        while (m.find() && m.start() == end) {
            nanos += Double.parseDouble(m.group(1)) * unitNanos(m.group(2));
            end = m.end();
        }
        if (end != s.length() || end == 0) {
            throw new IllegalArgumentException("bad duration " + s);
        }
        return Duration.ofNanos((long) nanos);
    }

    private static double unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1;
            case "us", "µs" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m" -> 60e9;
            default -> 3600e9;
        };
    }
}
