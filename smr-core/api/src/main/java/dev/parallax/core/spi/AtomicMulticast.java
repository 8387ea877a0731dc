package dev.parallax.core.spi;

import dev.parallax.core.GroupSet;

import java.nio.ByteBuffer;

/**
 * Atomic multicast: a message is addressed to a set of groups, and every subscriber of any of
 * those groups delivers it; a broadcast is a multicast to one group ({@link BroadcastMulticast}).
 * Multi-Ring Paxos (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5), P-SMR (ch. 6) and S-SMR
 * (seed 004 (S-SMR / Volery) §3) build on it.
 *
 * <p><b>Groups and subscriptions.</b> An instance offers a fixed set of groups ({@link #groups()}).
 * A process may {@link #subscribe} several times, to any non-empty subset (P-SMR: worker t_i
 * subscribes to {g_i, g_all} in one process); each {@link Subscription} has its own listener and
 * position, and is closed on its own.
 *
 * <p><b>Guarantees</b>, for the messages {@link #multicast} accepted (returned {@code true}):
 * <ul>
 *   <li>Validity: while the implementation's fault assumption holds (for Paxos-based ones a
 *       majority of every involved stream's members up and connected), an accepted message is
 *       delivered by every open subscription whose groups intersect its groups. Like
 *       {@link AtomicBroadcast}, a message accepted while its group's leader crashes or changes
 *       may be lost; clients retry and executors deduplicate by command id.</li>
 *   <li>Integrity: a subscription delivers a message at most once, and only if it was multicast
 *       to a group it subscribes to, with the group set it was multicast with.</li>
 *   <li>Uniform agreement per group: subscriptions of the same groups deliver the same sequence;
 *       two subscriptions deliver the messages of one group in the same order.</li>
 *   <li>Acyclic order: the union of every subscription's delivery order (in every process) has no
 *       cycle; in particular, if two subscriptions both deliver m and m', they deliver them in
 *       the same order.</li>
 * </ul>
 *
 * <p><b>Positions.</b> Each delivery carries the {@link MulticastPosition} after it: per stream,
 * the next sequence not yet consumed. {@link #subscribe(GroupSet, MulticastPosition,
 * MulticastListener)} from a position delivers exactly the messages that followed it, in the same
 * order, for a subscription of the same groups (a restart from a snapshot: no gap, no duplicate).
 * An implementation holds a bounded history; a position older than it holds is refused.
 *
 * <p><b>Back-pressure.</b> {@link #multicast} never blocks: it returns {@code false} when a bound
 * is reached (nothing was taken; try again). A listener may block; the implementation's buffers
 * then fill and ordering (and eventually {@code multicast}) stops for the streams it merges,
 * without losing an accepted message.
 *
 * <p><b>Threads.</b> {@link #multicast}, {@link #subscribe} and {@link #groups} may be called from
 * any thread. Listeners are called as {@link MulticastListener} states. {@link #close} is called
 * once by the owner; it closes every subscription and the underlying protocol, and leaves no
 * thread running.
 */
public interface AtomicMulticast extends AutoCloseable {

    /** The groups this multicast offers: {@link #multicast} and {@link #subscribe} accept subsets of it. */
    GroupSet groups();

    /**
     * Subscribes to {@code groups} from {@link MulticastPosition#START}.
     *
     * @see #subscribe(GroupSet, MulticastPosition, MulticastListener)
     */
    default Subscription subscribe(GroupSet groups, MulticastListener listener) {
        return subscribe(groups, MulticastPosition.START, listener);
    }

    /**
     * Subscribes to {@code groups}: messages multicast to any of them reach {@code listener}, in
     * the merged order, starting with the first message after {@code from}. Non-blocking (the
     * listener is called on the delivery thread).
     *
     * @throws IllegalArgumentException if a group is not offered, or {@code from} is older than
     *                                  the history this process still holds
     * @throws IllegalStateException    if the multicast is closed
     */
    Subscription subscribe(GroupSet groups, MulticastPosition from, MulticastListener listener);

    /**
     * Offers {@code message} for ordering in {@code groups}. Non-blocking; may be called from any
     * process, leader or not.
     *
     * @param message the bytes from position to limit; the implementation copies or keeps them as
     *                {@link AtomicBroadcast#propose} does (the caller must not modify them after
     *                {@code true}), and does not move the buffer's position
     * @return {@code false} when back-pressure refuses it (nothing was taken; try again later)
     * @throws IllegalArgumentException if a group is not offered
     * @throws IllegalStateException    if the multicast is closed
     */
    boolean multicast(GroupSet groups, ByteBuffer message);

    /** Closes every subscription, stops the protocol and releases threads and resources; idempotent. */
    @Override
    void close();
}
