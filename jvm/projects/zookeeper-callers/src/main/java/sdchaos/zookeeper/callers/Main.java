package sdchaos.zookeeper.callers;

/**
 * Entry point: {@code java -jar app.jar curator|spring}.
 *
 * <p>Protocol (docs/real-clients.md, extended for ZooKeeper). Environment: SDCHAOS_ZK_CONNECT (a
 * ZooKeeper connect string, chroot included), SDCHAOS_ZK_BASE_PATH (Curator's discovery base path,
 * default /services), SDCHAOS_SERVICE (service name), SDCHAOS_RATE (calls per second), SDCHAOS_START
 * and SDCHAOS_END (RFC 3339; the first call is due at the start; an empty or missing start means
 * the moment the client is ready, the started event's time), or instead SDCHAOS_GATE (a file: once
 * ready the caller prints {@code {"event":"ready","time"}} and waits for the file, whose two lines
 * are the start and the end), SDCHAOS_CALL_TIMEOUT (a Go
 * duration), SDCHAOS_ZK_SESSION_TIMEOUT and SDCHAOS_ZK_CONNECTION_TIMEOUT (Go durations; empty
 * leaves the client's own default). Output on stdout, one JSON object a line: a call
 * {@code {"scheduled","start","end","target","outcome":"ok|fail|unknown","err"}}, or an event
 * {@code {"event":"connection","time","state"}} for each Curator connection state change
 * (CONNECTED, SUSPENDED, LOST, RECONNECTED, READ_ONLY), {@code {"event":"instances","time","count"}}
 * each time the caller's ServiceCache changed (curator only), and {@code {"event":"started","time",
 * "detail"}} once the client is built and the calls begin.
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
            case "curator" -> CuratorCaller.run(settings);
            case "spring" -> SpringCaller.run(settings, args);
            default -> {
                System.err.println("usage: java -jar app.jar curator|spring (got " + mode + ")");
                System.exit(2);
            }
        }
        System.out.flush();
        // Every call is printed and flushed: the shutdown hooks (Spring's context close, the
        // client's thread pools) measure nothing and took Spring about 10 s, so they are skipped.
        Runtime.getRuntime().halt(0);
    }
}
