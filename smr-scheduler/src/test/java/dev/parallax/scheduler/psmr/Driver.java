package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.testkit.Await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/**
 * A hand-driven delivery thread for one worker: delivers a fixed list of commands in order on a
 * thread of its own, marked as that worker's ({@link #WORKER}), and keeps what it threw.
 */
final class Driver {
    /** The worker whose delivery thread the current thread is; -1 for any other thread. */
    static final ThreadLocal<Integer> WORKER = ThreadLocal.withInitial(() -> -1);
    /** Generous: these are event waits on a loaded 2-core machine, not timings. */
    static final long TIMEOUT_SECONDS = 60;

    private final Thread thread;
    private volatile Throwable thrown;
    private volatile int delivered;

    private Driver(PsmrWorkers.Worker worker, List<Command> commands) {
        thread = new Thread(() -> {
            WORKER.set(worker.index());
            try {
                for (Command c : commands) {
                    worker.deliver(c);
                    delivered++;
                }
            } catch (Throwable t) {
                thrown = t;
            }
        }, "driver-" + worker.index());
        thread.setDaemon(true);
    }

    static Driver start(PsmrWorkers.Worker worker, Command... commands) {
        Driver d = new Driver(worker, List.of(commands));
        d.thread.start();
        return d;
    }

    Thread thread() {
        return thread;
    }

    int delivered() {
        return delivered;
    }

    /** Joins the thread (failing the test after the time-out) and returns what it threw, or null. */
    Throwable join() throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
        if (thread.isAlive()) {
            fail("driver of " + thread.getName() + " still running after " + TIMEOUT_SECONDS + " s");
        }
        return thrown;
    }

    /** Joins and fails the test if the thread threw. */
    void joinOk() throws InterruptedException {
        Throwable t = join();
        if (t != null) {
            throw new AssertionError(thread.getName() + " threw", t);
        }
    }

    /** Polls {@code condition} until it holds, failing the test with {@code what} after the time-out. */
    static void awaitUntil(BooleanSupplier condition, java.util.function.Supplier<String> what)
            throws InterruptedException {
        Await.until(Duration.ofSeconds(TIMEOUT_SECONDS), condition, what);
    }

    /** Waits until the wait report of {@code group} says worker {@code i}'s line contains {@code text}. */
    static void awaitWaiting(PsmrWorkers group, int i, String text) throws InterruptedException {
        awaitUntil(() -> line(group, i).contains(text), () -> "worker " + i + " to wait for '" + text + "':\n"
                + group.waitReport());
    }

    static String line(PsmrWorkers group, int i) {
        return group.waitReport().lines().filter(l -> l.startsWith("worker " + i + ":")).findFirst().orElseThrow();
    }
}
