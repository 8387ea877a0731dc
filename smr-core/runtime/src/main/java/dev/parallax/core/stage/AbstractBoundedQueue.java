package dev.parallax.core.stage;

import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The part shared by every {@link BoundedQueue}: null checks, the consumer wakeup after a
 * successful publication, and {@code put} as {@code offer} with a backoff.
 */
abstract class AbstractBoundedQueue<E> implements BoundedQueue<E> {

    private static final WaitStrategy.Factory PUT_BACKOFF = WaitStrategies.yieldPark(
            100, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100));

    /**
     * Whether a successful {@link #tryPublish} is a sequentially consistent write that the
     * consumer's {@link #isEmpty()} observes (a CAS on the producer index). If not, the producer
     * fences before reading the consumer's "parked" flag; see the package documentation.
     */
    private final boolean publicationIsFence;

    private volatile Wakeup consumerWakeup = Wakeup.NONE;

    AbstractBoundedQueue(boolean publicationIsFence) {
        this.publicationIsFence = publicationIsFence;
    }

    /** Adds {@code element} if there is room; producer side, non-blocking. */
    abstract boolean tryPublish(E element);

    @Override
    public final boolean offer(E element) {
        Objects.requireNonNull(element, "element");
        if (!tryPublish(element)) {
            return false;
        }
        Wakeup wakeup = consumerWakeup;
        if (wakeup != Wakeup.NONE) {
            if (!publicationIsFence) {
                // Dekker: our release-store of the element or index must not pass the load of the
                // consumer's parked flag inside wake().
                VarHandle.fullFence();
            }
            wakeup.wake();
        }
        return true;
    }

    @Override
    public final void put(E element) throws InterruptedException {
        if (offer(element)) {
            return;
        }
        WaitStrategy backoff = PUT_BACKOFF.create(Parker.LOCK_SUPPORT);
        do {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for room in " + this);
            }
            backoff.idle(0);
        } while (!offer(element));
    }

    @Override
    public final void setConsumerWakeup(Wakeup wakeup) {
        consumerWakeup = Objects.requireNonNull(wakeup, "wakeup");
    }

    static void checkLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0: " + limit);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[size=" + size() + ", capacity=" + capacity() + "]";
    }
}
