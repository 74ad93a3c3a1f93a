package sdchaos.nacos.callers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The caller's settings, read from the environment (see {@link Main}). */
record Settings(String server, int grpcOffset, String service, double rate, Instant start, Instant end,
        Duration callTimeout, boolean loadCacheAtStart, boolean pushEmptyProtection, boolean staleFallback,
        boolean restarted, Path gate) {

    /** How often the gate file is looked for. */
    private static final long GATE_POLL_MILLIS = 5;

    private static final Pattern GO_DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    /** Reads every SDCHAOS_ variable; a missing required one is an error naming it. */
    static Settings fromEnv() {
        String gate = env("SDCHAOS_GATE", "");
        Instant start = env("SDCHAOS_START", "").isEmpty() ? Instant.now() : Instant.parse(env("SDCHAOS_START", ""));
        return new Settings(required("SDCHAOS_NACOS_SERVER"),
                Integer.parseInt(env("SDCHAOS_NACOS_GRPC_OFFSET", "1000")), required("SDCHAOS_SERVICE"),
                Double.parseDouble(env("SDCHAOS_RATE", "40")), gate.isEmpty() ? start : null,
                gate.isEmpty() ? Instant.parse(required("SDCHAOS_END")) : null,
                goDuration(env("SDCHAOS_CALL_TIMEOUT", "1s")), flag("SDCHAOS_LOAD_CACHE_AT_START"),
                flag("SDCHAOS_PUSH_EMPTY_PROTECTION"), flag("SDCHAOS_STALE_FALLBACK"), flag("SDCHAOS_RESTARTED"),
                gate.isEmpty() ? null : Path.of(gate));
    }

    /**
     * The settings the calls run with, once the client is ready: with SDCHAOS_GATE, the ready
     * event is printed and the start and end are read from the gate file (two RFC 3339 lines) as
     * soon as the harness writes it; otherwise these settings.
     */
    Settings whenReady() throws IOException, InterruptedException {
        if (gate == null) {
            return this;
        }
        Lines.ready();
        while (!Files.exists(gate)) {
            Thread.sleep(GATE_POLL_MILLIS);
        }
        List<String> lines = Files.readAllLines(gate, StandardCharsets.UTF_8);
        if (lines.size() < 2) {
            throw new IllegalStateException("gate file " + gate + " holds " + lines.size() + " lines, want start and end");
        }
        return new Settings(server, grpcOffset, service, rate, Instant.parse(lines.get(0).trim()),
                Instant.parse(lines.get(1).trim()), callTimeout, loadCacheAtStart, pushEmptyProtection, staleFallback,
                restarted, gate);
    }

    /** A one-line summary for the started event. */
    String describe() {
        return "loadCacheAtStart=" + loadCacheAtStart + " pushEmptyProtection=" + pushEmptyProtection
                + " staleFallback=" + staleFallback + (restarted ? " restarted" : "");
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

    private static boolean flag(String name) {
        return Boolean.parseBoolean(env(name, "false"));
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
