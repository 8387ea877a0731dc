package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

/**
 * One subscriber's handle on an {@link AtomicMulticast}: returned by
 * {@link AtomicMulticast#subscribe}, it delivers the messages of {@link #groups()} to its
 * {@link MulticastListener} until closed.
 *
 * <p><b>Snapshots.</b> {@link #snapshotTaken} tells the implementation that the subscriber's state
 * up to a position is safe elsewhere: it may forget (compact) what lies below, once no other open
 * subscription of the process still needs it. {@link #snapshotInstalled} moves delivery: the
 * subscriber replaced its state with a snapshot taken at a position, so delivery continues exactly
 * there — forwards (a snapshot received from a peer) or backwards (a local restart), within what
 * the implementation still holds.
 *
 * <p><b>Threads.</b> Every method may be called from any thread, including the subscription's
 * delivery thread inside {@link MulticastListener#deliver}; none blocks except {@link #close}.
 */
public interface Subscription extends AutoCloseable {

    /** The groups this subscription delivers. */
    GroupSet groups();

    /**
     * The subscriber persisted a snapshot covering every message before {@code position} (a
     * position its listener was given, or one it resumed from). Non-blocking.
     */
    void snapshotTaken(MulticastPosition position);

    /**
     * What a snapshot taken now must store to resume here: {@code delivered} (the position the
     * listener is being given, this call made from inside {@link MulticastListener#deliver}) with
     * the implementation's {@link MulticastPosition#record()}, so that a subscription resumed from
     * it, in this process or another, delivers every later message once and drops the same late
     * copies as everyone else. Non-blocking. Default: {@code delivered} (no record).
     */
    default MulticastPosition resumePosition(MulticastPosition delivered) {
        return delivered;
    }

    /**
     * The subscriber installed a snapshot taken at {@code position}: the next message delivered
     * is the first one after it. If called from inside {@code deliver}, it takes effect at the
     * next delivery; from another thread, after the delivery in progress (if any). Non-blocking.
     *
     * @throws IllegalArgumentException if the implementation no longer holds what delivery from
     *                                  {@code position} needs (it was forgotten after snapshots)
     * @throws IllegalStateException    if the subscription is closed
     */
    void snapshotInstalled(MulticastPosition position);

    /**
     * Stops delivery to this subscription: once {@code close} returns, the listener is not called
     * again (a call from inside {@code deliver} returns at once and the current delivery is the
     * last). Interrupts a listener blocked in {@code deliver} and waits for the delivery thread the
     * subscription owns to finish. Idempotent; other subscriptions are unaffected.
     */
    @Override
    void close();
}
