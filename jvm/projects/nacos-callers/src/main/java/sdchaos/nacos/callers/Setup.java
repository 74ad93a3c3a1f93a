package sdchaos.nacos.callers;

/**
 * The caller's setup before its first due call, retried: on a loaded machine the server may not
 * answer a subscribe within the client's 3 s request timeout while every JVM is starting, and a
 * caller that gives up there records nothing. Nothing measured is retried. A restarted caller
 * (started again while the server may be unreachable) tries each step once and goes on when it
 * fails, printing a setup-failed event, as an application started during an outage does.
 */
final class Setup {

    /** How many times a setup step is tried, and the pause between tries. */
    private static final int ATTEMPTS = 5;
    private static final long PAUSE_MILLIS = 2000;

    /** One setup step. */
    interface Step {
        /** Performs the step. */
        void run() throws Exception;
    }

    private Setup() {
    }

    /**
     * Runs step until it succeeds, at most ATTEMPTS times; the last failure is thrown. For a
     * restarted caller (s.restarted()) step runs once and a failure is printed, not thrown.
     */
    static void retry(Settings s, String what, Step step) throws Exception {
        if (s.restarted()) {
            try {
                step.run();
            } catch (Exception e) {
                Lines.setupFailed(what + ": " + e);
            }
            return;
        }
        for (int i = 1;; i++) {
            try {
                step.run();
                return;
            } catch (Exception e) {
                if (i >= ATTEMPTS) {
                    throw e;
                }
                System.err.println("setup: " + what + " failed (attempt " + i + " of " + ATTEMPTS + "), retrying: " + e);
                Thread.sleep(PAUSE_MILLIS);
            }
        }
    }
}
