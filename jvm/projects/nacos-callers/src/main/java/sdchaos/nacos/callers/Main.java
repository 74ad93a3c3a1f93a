package sdchaos.nacos.callers;

/**
 * Entry point: {@code java -jar app.jar spring|plain}.
 *
 * <p>Protocol (docs/real-clients.md, extended for Nacos). Environment: SDCHAOS_NACOS_SERVER
 * (host:port of the server's HTTP port; gRPC is that port + SDCHAOS_NACOS_GRPC_OFFSET, default
 * 1000), SDCHAOS_SERVICE (service name, DEFAULT_GROUP), SDCHAOS_RATE (calls per second),
 * SDCHAOS_START and SDCHAOS_END (RFC 3339; the first call is due at the start), or instead SDCHAOS_GATE
 * (a file: once ready the caller prints {@code {"event":"ready","time"}} and waits for the file, whose
 * two lines are the start and the end), SDCHAOS_CALL_TIMEOUT
 * (a Go duration), SDCHAOS_LOAD_CACHE_AT_START, SDCHAOS_PUSH_EMPTY_PROTECTION and (spring only)
 * SDCHAOS_STALE_FALLBACK ("true" or "false"), and SDCHAOS_RESTARTED ("true": the process is a caller
 * started again, possibly while the server is unreachable: its setup is tried once, a failure is an
 * event and not fatal, and its calls are the ones due from the end of its setup on, on the grid of
 * SDCHAOS_START). Output on stdout, one JSON object a line: a call
 * {@code {"scheduled","start","end","target","outcome":"ok|fail|unknown","err","class"}} (class: why a
 * failed call failed, {@link ErrClass}), or an event
 * {@code {"event":"instances","time","count"}} each time the client's listener saw the service's
 * list change, {@code {"event":"started","time","detail"}} once the client is built, and
 * {@code {"event":"setup-failed","time","detail"}} when a restarted caller's setup step failed.
 */
public final class Main {

    private Main() {
    }

    /**
     * Runs the caller named by args[0] until SDCHAOS_END, then exits at once (halt).
     *
     * @param args the mode, then (spring) Spring arguments
     */
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        Settings settings = Settings.fromEnv();
        switch (mode) {
            case "spring" -> SpringCaller.run(settings, args);
            case "plain" -> PlainCaller.run(settings);
            default -> {
                System.err.println("usage: java -jar app.jar spring|plain (got " + mode + ")");
                System.exit(2);
            }
        }
        System.out.flush();
        // Every call is printed and flushed: the shutdown hooks (Spring's context close, the
        // client's thread pools) measure nothing and took Spring about 10 s, so they are skipped.
        Runtime.getRuntime().halt(0);
    }
}
