package sdchaos.zookeeper.callers;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;

/** Calls one instance (GET http://host:port/) and prints the call's line. */
final class HttpProbe {

    /** How many unrecorded calls warmUp makes. */
    private static final int WARM_UP_CALLS = 5;

    private final HttpClient client;
    private final Duration timeout;

    HttpProbe(Duration timeout) {
        this.timeout = timeout;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** Calls target and prints the outcome: ok on 200, unknown on a timeout, fail otherwise. */
    void call(Instant scheduled, Instant start, String target) {
        String outcome = "ok";
        String err = "";
        try {
            HttpResponse<Void> resp = client.send(request(target), HttpResponse.BodyHandlers.discarding());
            if (resp.statusCode() != 200) {
                outcome = "fail";
                err = "HTTP " + resp.statusCode();
            }
        } catch (HttpTimeoutException e) {
            outcome = "unknown";
            err = e.toString();
        } catch (Exception e) {
            outcome = "fail";
            err = e.toString();
        }
        Lines.call(scheduled, start, Instant.now(), target, outcome, err);
    }

    /**
     * Calls target a few times and prints nothing: the JVM's first requests load the HTTP client's
     * classes, a second of CPU that would otherwise land on the first due calls.
     */
    void warmUp(String target) {
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            try {
                client.send(request(target), HttpResponse.BodyHandlers.discarding());
            } catch (Exception e) {
                return; // a failed warm-up is no call: the measured calls say what happens
            }
        }
    }

    private HttpRequest request(String target) {
        return HttpRequest.newBuilder(URI.create("http://" + target + "/")).timeout(timeout).GET().build();
    }

    /**
     * Reports whether a call that started at start is still within its deadline; if not, prints it
     * as timed out at start + the deadline (when a caller with that deadline gave up: the client
     * returned later, why says where it was held) and the call must not go on.
     */
    boolean inTime(Instant scheduled, Instant start, String why) {
        Instant now = Instant.now();
        Instant deadline = start.plus(timeout);
        if (!now.isAfter(deadline)) {
            return true;
        }
        Lines.call(scheduled, start, deadline, "", "unknown",
                "timed out after " + timeout.toMillis() + " ms: " + why + " for " + Duration.between(start, now).toMillis() + " ms");
        return false;
    }

    /** Prints a call that failed before reaching any instance (no instance to call). */
    static void failed(Instant scheduled, Instant start, Exception e) {
        Lines.call(scheduled, start, Instant.now(), "", "fail", e.toString());
    }
}
