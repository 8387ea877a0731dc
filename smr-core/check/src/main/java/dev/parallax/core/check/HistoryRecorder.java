package dev.parallax.core.check;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Records the operations of concurrent clients into a {@link History}.
 *
 * <p>A client calls {@link #invoke} right before sending a request and then exactly one of
 * {@link #ok} (reply received), {@link #unknown} (timed out or crashed: the operation may or may
 * not take effect) or {@link #failed} (definitely did not take effect: the operation is dropped).
 * An invocation still open when {@link #history()} is called counts as unknown, which is what a
 * crashed client leaves behind.
 *
 * <p>Thread-safe and lock-free: {@link #invoke} allocates one handle and pushes it with one CAS,
 * completions are one CAS on the handle. Times come from the injected clock, which must be
 * monotonic and thread-safe; simulations pass their virtual clock.
 *
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
public final class HistoryRecorder<I, O> {

    private static final int PENDING = 0;
    private static final int OK = 1;
    private static final int UNKNOWN = 2;
    private static final int FAILED = 3;
    /** Claimed by {@link #ok} while it writes the output; reads as still open. */
    private static final int COMPLETING = 4;

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(Invocation.class, "status", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LongSupplier clock;
    private final AtomicReference<Invocation<I, O>> newest = new AtomicReference<>();

    /**
     * A recorder timing operations with {@code clock} (nanoseconds, or any monotonic unit).
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public HistoryRecorder(LongSupplier clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A recorder timing operations with {@link System#nanoTime()}. */
    public HistoryRecorder() {
        this(System::nanoTime);
    }

    /**
     * Records that {@code clientId} invokes {@code input} now. Thread-safe, lock-free.
     *
     * @return the handle to complete with {@link #ok}, {@link #unknown} or {@link #failed}
     * @throws NullPointerException if {@code input} is null
     */
    public Invocation<I, O> invoke(int clientId, I input) {
        Objects.requireNonNull(input, "input");
        Invocation<I, O> invocation = new Invocation<>(this, clientId, input, clock.getAsLong());
        Invocation<I, O> head;
        do {
            head = newest.get();
            invocation.older = head;
        } while (!newest.compareAndSet(head, invocation));
        return invocation;
    }

    /**
     * Records that the invocation returned {@code output} now. Thread-safe, lock-free.
     *
     * @throws IllegalArgumentException if the handle comes from another recorder
     * @throws IllegalStateException if the handle was already completed, or the clock went back
     */
    public void ok(Invocation<I, O> invocation, O output) {
        long now = clock.getAsLong();
        own(invocation);
        if (now < invocation.invokeNanos || now == Operation.UNKNOWN_RETURN) {
            throw new IllegalStateException("clock went back or overflowed: " + now);
        }
        claim(invocation, COMPLETING);
        invocation.output = output;
        invocation.returnNanos = now;
        STATUS.setRelease(invocation, OK);
    }

    /**
     * Records that the invocation's outcome will never be known (timeout, crash, lost reply): it
     * may or may not take effect. Thread-safe, lock-free.
     *
     * @throws IllegalArgumentException if the handle comes from another recorder
     * @throws IllegalStateException if the handle was already completed
     */
    public void unknown(Invocation<I, O> invocation) {
        own(invocation);
        claim(invocation, UNKNOWN);
    }

    /**
     * Records that the invocation definitely had no effect (e.g. rejected before reaching the
     * replicas); it is left out of the history. Thread-safe, lock-free.
     *
     * @throws IllegalArgumentException if the handle comes from another recorder
     * @throws IllegalStateException if the handle was already completed
     */
    public void failed(Invocation<I, O> invocation) {
        own(invocation);
        claim(invocation, FAILED);
    }

    /**
     * The history recorded so far, in order of invocation time (ties in order of {@link #invoke}
     * calls); open invocations appear with an unknown outcome. Thread-safe and non-blocking, but an invocation completed concurrently with this
     * call may appear either open or completed, so call it once the clients have stopped.
     */
    public History<I, O> history() {
        List<Operation<I, O>> operations = new ArrayList<>();
        for (Invocation<I, O> i = newest.get(); i != null; i = i.older) {
            int status = (int) STATUS.getAcquire(i);
            if (status == OK) {
                operations.add(Operation.completed(i.clientId, i.input, i.output, i.invokeNanos, i.returnNanos));
            } else if (status != FAILED) {
                operations.add(Operation.unknown(i.clientId, i.input, i.invokeNanos));
            }
        }
        Collections.reverse(operations);
        operations.sort(Comparator.comparingLong(Operation::invokeNanos));
        return History.of(operations);
    }

    private void own(Invocation<I, O> invocation) {
        if (Objects.requireNonNull(invocation, "invocation").recorder != this) {
            throw new IllegalArgumentException("invocation of another recorder");
        }
    }

    private static void claim(Invocation<?, ?> invocation, int status) {
        if (!STATUS.compareAndSet(invocation, PENDING, status)) {
            throw new IllegalStateException("invocation already completed: " + invocation);
        }
    }

    /**
     * The handle of one recorded invocation, completed once through its recorder. Opaque; safe
     * to pass between threads.
     *
     * @param <I> the model's input type
     * @param <O> the model's output type
     */
    public static final class Invocation<I, O> {
        private final HistoryRecorder<I, O> recorder;
        private final int clientId;
        private final I input;
        private final long invokeNanos;
        private Invocation<I, O> older;
        private O output;
        private long returnNanos;
        @SuppressWarnings("unused")
        private volatile int status;

        private Invocation(HistoryRecorder<I, O> recorder, int clientId, I input, long invokeNanos) {
            this.recorder = recorder;
            this.clientId = clientId;
            this.input = input;
            this.invokeNanos = invokeNanos;
        }

        /** The client that invoked. Thread-safe. */
        public int clientId() {
            return clientId;
        }

        /** What was invoked. Thread-safe. */
        public I input() {
            return input;
        }

        /** When it was invoked, in the recorder's clock. Thread-safe. */
        public long invokeNanos() {
            return invokeNanos;
        }

        @Override
        public String toString() {
            return "client " + clientId + " " + input + " at " + invokeNanos;
        }
    }
}
