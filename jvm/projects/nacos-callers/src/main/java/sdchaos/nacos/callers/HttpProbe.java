package sdchaos.nacos.callers;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;

/** Calls one instance (GET http://host:port/) and prints the call's line. */
final class HttpProbe {

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
        String errClass = "";
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + target + "/")).timeout(timeout).GET().build();
            HttpResponse<Void> resp = client.send(req, HttpResponse.BodyHandlers.discarding());
            if (resp.statusCode() != 200) {
                outcome = "fail";
                err = "HTTP " + resp.statusCode();
                errClass = ErrClass.INSTANCE;
            }
        } catch (HttpTimeoutException e) {
            outcome = "unknown";
            err = e.toString();
            errClass = ErrClass.INSTANCE;
        } catch (Exception e) {
            outcome = "fail";
            err = e.toString();
            errClass = ErrClass.INSTANCE;
        }
        Lines.call(scheduled, start, Instant.now(), target, outcome, err, errClass);
    }

    /**
     * Calls target a few times and prints nothing: the first requests of a JVM load and link the
     * HTTP client's classes, a second or more of CPU that would otherwise land on the first due
     * calls (and, with four JVMs starting at once, starve every caller on a small machine).
     */
    void warmUp(String target) {
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            try {
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + target + "/")).timeout(timeout).GET().build();
                client.send(req, HttpResponse.BodyHandlers.discarding());
            } catch (Exception e) {
                return; // a warm-up that fails is no call: the measured calls say what happens
            }
        }
    }

    /** How many unrecorded calls warmUp makes. */
    private static final int WARM_UP_CALLS = 5;

    /**
     * Prints a call that failed before reaching any instance: the client gave none, for the
     * reason errClass says ({@link ErrClass}).
     */
    static void failed(Instant scheduled, Instant start, Exception e, String errClass) {
        Lines.call(scheduled, start, Instant.now(), "", "fail", e.toString(), errClass);
    }
}
