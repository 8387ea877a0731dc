package dev.parallax.core.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The tests' one way to wait for a condition that another thread or process brings about, with a
 * deadline: use it instead of {@code Thread.sleep} followed by an assertion (a rule,
 * {@code NoSleepInTestsTest}, fails the build on an unmarked sleep in test code).
 *
 * <p>Each method polls its condition on the calling thread, first at once, then after pauses that
 * start at {@value #FIRST_PAUSE_MILLIS} ms and double up to {@value #MAX_PAUSE_MILLIS} ms, until the
 * condition holds or the timeout passes. On timeout it throws an {@link AssertionError} naming what
 * was awaited, the timeout and (for {@link #value}) the last value observed. The timeout only
 * bounds the wait: nothing here asserts how long a condition took.
 *
 * <p>Conditions may have side effects, for example re-sending a probe until it arrives; they run
 * once per poll. Stateless and thread-safe; every method blocks the calling thread and throws
 * {@link InterruptedException} if that thread is interrupted while it waits.
 */
public final class Await {

    /** The first pause between two polls, in milliseconds. */
    public static final long FIRST_PAUSE_MILLIS = 1;
    /** The longest pause between two polls, in milliseconds. */
    public static final long MAX_PAUSE_MILLIS = 20;

    private Await() {
    }

    /**
     * Blocks until {@code condition} holds.
     *
     * @param what what is awaited, for the failure message ("replica 2 wrote a snapshot")
     * @param timeout how long to wait at most
     * @param condition the condition, polled on this thread
     * @throws AssertionError if it does not hold within {@code timeout}
     * @throws InterruptedException if this thread is interrupted while waiting
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Objects.requireNonNull(what, "what");
        until(timeout, condition, () -> what);
    }

    /**
     * Blocks until {@code condition} holds.
     *
     * @param timeout how long to wait at most
     * @param condition the condition, polled on this thread
     * @param what describes what is awaited, for the failure message; called only on failure, so it
     *     may describe the state at that moment
     * @throws AssertionError if it does not hold within {@code timeout}
     * @throws InterruptedException if this thread is interrupted while waiting
     */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> what)
            throws InterruptedException {
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(what, "what");
        Poll poll = new Poll(timeout);
        while (!condition.getAsBoolean()) {
            if (poll.expired()) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what.get());
            }
            poll.pause();
        }
    }

    /**
     * Blocks until {@code observe} returns a value that {@code accept} accepts, and returns it.
     *
     * @param <T> the observed value's type
     * @param timeout how long to wait at most
     * @param observe reads the current value, on this thread; may return null (given to
     *     {@code accept} as is)
     * @param accept whether a value is the one awaited
     * @param what describes what is awaited, for the failure message
     * @return the first accepted value
     * @throws AssertionError if no accepted value is observed within {@code timeout}; its message
     *     ends with the last value observed
     * @throws InterruptedException if this thread is interrupted while waiting
     */
    public static <T> T value(Duration timeout, Supplier<? extends T> observe, Predicate<? super T> accept,
            Supplier<String> what) throws InterruptedException {
        Objects.requireNonNull(observe, "observe");
        Objects.requireNonNull(accept, "accept");
        Objects.requireNonNull(what, "what");
        Poll poll = new Poll(timeout);
        while (true) {
            T value = observe.get();
            if (accept.test(value)) {
                return value;
            }
            if (poll.expired()) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what.get()
                        + "; last observed: " + value);
            }
            poll.pause();
        }
    }

    /**
     * Blocks until {@code observe} returns a value equal to {@code expected}.
     *
     * @param timeout how long to wait at most
     * @param observe reads the current value, on this thread
     * @param expected the awaited value (may be null)
     * @param what describes what is awaited, for the failure message
     * @throws AssertionError if the value is not observed within {@code timeout}; its message ends
     *     with the last value observed
     * @throws InterruptedException if this thread is interrupted while waiting
     */
    public static void untilEquals(Duration timeout, Supplier<?> observe, Object expected, Supplier<String> what)
            throws InterruptedException {
        Objects.requireNonNull(what, "what");
        value(timeout, observe, v -> Objects.equals(v, expected), () -> what.get() + " to be " + expected);
    }

    /**
     * Blocks until {@code assertions} runs without throwing an {@link AssertionError}: for an
     * assertion about state that converges. Other exceptions are not retried.
     *
     * @param timeout how long to wait at most
     * @param assertions the assertions, run on this thread once per poll
     * @throws AssertionError the last failure of {@code assertions}, with the timeout added to its
     *     message, if they do not pass within {@code timeout}
     * @throws InterruptedException if this thread is interrupted while waiting
     */
    public static void untilAsserted(Duration timeout, Runnable assertions) throws InterruptedException {
        Objects.requireNonNull(assertions, "assertions");
        Poll poll = new Poll(timeout);
        while (true) {
            try {
                assertions.run();
                return;
            } catch (AssertionError e) {
                if (poll.expired()) {
                    throw new AssertionError("timed out after " + timeout
                            + " waiting for assertions to pass; last failure: " + e.getMessage(), e);
                }
            }
            poll.pause();
        }
    }

    /**
     * Calls {@code attempt} until it returns, retrying after a pause when it throws an exception
     * that {@code retryable} accepts: for an operation that fails while a connection or a leader
     * comes back ("connection loss").
     *
     * @param <T> the result's type
     * @param timeout how long to retry at most
     * @param attempt the operation, called on this thread once per poll
     * @param retryable whether a failure of {@code attempt} is retried; others are thrown at once
     * @param what describes what is awaited, for the failure message
     * @return what the first successful call returned
     * @throws AssertionError if no call succeeds within {@code timeout}, with the last retryable
     *     failure as its cause
     * @throws InterruptedException if this thread is interrupted while waiting
     * @throws Exception a failure of {@code attempt} that is not retryable
     */
    public static <T> T success(Duration timeout, Attempt<? extends T> attempt, Predicate<? super Exception> retryable,
            Supplier<String> what) throws Exception {
        Objects.requireNonNull(attempt, "attempt");
        Objects.requireNonNull(retryable, "retryable");
        Objects.requireNonNull(what, "what");
        Poll poll = new Poll(timeout);
        while (true) {
            try {
                return attempt.call();
            } catch (Exception e) {
                if (!retryable.test(e)) {
                    throw e;
                }
                if (poll.expired()) {
                    throw new AssertionError("timed out after " + timeout + " waiting for " + what.get()
                            + "; last failure: " + e, e);
                }
            }
            poll.pause();
        }
    }

    /**
     * An operation that may fail, for {@link #success}.
     *
     * @param <T> its result's type
     */
    @FunctionalInterface
    public interface Attempt<T> {
        /**
         * Runs the operation once.
         *
         * @return its result
         * @throws Exception if it failed
         */
        T call() throws Exception;
    }

    /**
     * The time left until {@code deadline}, for several waits that share one deadline.
     *
     * @param deadline a {@link System#nanoTime()} reading
     * @return the time until then; zero once it has passed (a wait then polls once)
     */
    public static Duration timeLeft(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** One wait's deadline and back-off. */
    private static final class Poll {
        private final long deadline;
        private long pauseMillis = FIRST_PAUSE_MILLIS;

        Poll(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("negative timeout: " + timeout);
            }
            this.deadline = System.nanoTime() + timeout.toNanos();
        }

        boolean expired() {
            return System.nanoTime() - deadline > 0;
        }

        void pause() throws InterruptedException {
            // The poll's back-off: the one sleep test code needs (NoSleepInTestsTest exempts this file).
            Thread.sleep(pauseMillis);
            pauseMillis = Math.min(MAX_PAUSE_MILLIS, pauseMillis * 2);
        }
    }
}
