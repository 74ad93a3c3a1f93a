package sdchaos.nacos.callers;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Writes the protocol's JSON lines to stdout, one whole line at a time. */
final class Lines {

    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    private Lines() {
    }

    /**
     * Prints one call; errClass says why a failed call failed ({@link ErrClass}), "" for an ok
     * call.
     */
    static void call(Instant scheduled, Instant start, Instant end, String target, String outcome, String err,
            String errClass) {
        print("{\"scheduled\":\"" + scheduled + "\",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"target\":" + quote(target) + ",\"outcome\":\"" + outcome + "\",\"err\":" + quote(err)
                + ",\"class\":\"" + errClass + "\"}");
    }

    /** Prints an instance-list change the client's listener saw. */
    static void instances(int count) {
        print("{\"event\":\"instances\",\"time\":\"" + Instant.now() + "\",\"count\":" + count + "}");
    }

    /** Prints the ready event: the client is built and waits for the harness's gate. */
    static void ready() {
        print("{\"event\":\"ready\",\"time\":\"" + Instant.now() + "\"}");
    }

    /** Prints the started event. */
    static void started(String detail) {
        print("{\"event\":\"started\",\"time\":\"" + Instant.now() + "\",\"detail\":" + quote(detail) + "}");
    }

    /** Prints that a setup step of a restarted caller failed (detail: the step and the error). */
    static void setupFailed(String detail) {
        print("{\"event\":\"setup-failed\",\"time\":\"" + Instant.now() + "\",\"detail\":" + quote(detail) + "}");
    }

    private static synchronized void print(String line) {
        OUT.println(line);
        OUT.flush();
    }

    /** Quotes s as a JSON string. */
    static String quote(String s) {
        if (s == null) {
            return "\"\"";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
