package sdchaos.zookeeper.callers;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop pacing: call i is due at start + i / rate and runs on a pool whatever earlier calls
 * are doing (a call blocked in its client, as Spring's LoadBalancer is while it waits for a
 * discovery read, takes a thread of its own, however many block: the pacer never runs a call
 * itself, so no blocked client makes it late); each call records when it was due and when it
 * really started. Calls due before the client was ready are made late (their scheduled time says
 * so), none is skipped.
 */
final class Pacer {

    /** Threads kept for the calls. */
    private static final int CORE_THREADS = 32;

    /**
     * How long the calls in flight at the end are waited for beyond the call timeout: Spring Cloud
     * LoadBalancer's discovery read times out after 30 s (spring.cloud.loadbalancer.service-discovery
     * .timeout), plus 5 s.
     */
    private static final long DRAIN_MILLIS = 35_000;

    /** One call: it prints its own line. */
    interface Call {
        /** Makes the call due at scheduled. */
        void run(Instant scheduled);
    }

    private Pacer() {
    }

    /** Runs call at rate from start until end, then waits for the calls in flight. */
    static void run(Settings s, Call call) throws InterruptedException {
        // A 120 s ZooKeeper cut held Spring's calls in their discovery read until the heal, 40 a
        // second: a bounded pool filled and ran calls on the pacer's thread, 52 s late.
        ThreadPoolExecutor pool = new ThreadPoolExecutor(CORE_THREADS, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>());
        long periodNanos = (long) (1e9 / s.rate());
        for (long i = 0;; i++) {
            Instant due = s.start().plusNanos(i * periodNanos);
            if (!due.isBefore(s.end())) {
                break;
            }
            sleepUntil(due);
            pool.execute(() -> call.run(due));
        }
        pool.shutdown();
        pool.awaitTermination(s.callTimeout().toMillis() + DRAIN_MILLIS, TimeUnit.MILLISECONDS);
    }

    private static void sleepUntil(Instant t) {
        for (;;) {
            long nanos = Duration.between(Instant.now(), t).toNanos();
            if (nanos <= 0) {
                return;
            }
            LockSupport.parkNanos(nanos);
        }
    }
}
