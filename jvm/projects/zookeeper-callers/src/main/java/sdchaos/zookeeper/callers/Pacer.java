package sdchaos.zookeeper.callers;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop pacing: call i is due at start + i / rate and runs on a pool whatever earlier calls
 * are doing; each call records when it was due and when it really started. Calls due before the
 * client was ready are made late (their scheduled time says so), none is skipped.
 */
final class Pacer {

    /** One call: it prints its own line. */
    interface Call {
        /** Makes the call due at scheduled. */
        void run(Instant scheduled);
    }

    private Pacer() {
    }

    /** Runs call at rate from start until end, then waits for the calls in flight. */
    static void run(Settings s, Call call) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(32);
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
        pool.awaitTermination(s.callTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS);
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
