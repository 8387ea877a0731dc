package dev.parallax.paxos.spaxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;

import java.nio.ByteBuffer;

/**
 * The delivery thread's copy of {@link ExecutedIds} (deduplication state is replicated state):
 * applies the ids of every delivered instance, so that when the replica snapshots after
 * instance {@code i} the record it stores ({@link #state}) is exactly the one the protocol thread
 * had after executing {@code i} — whatever the protocol thread has executed since. A replica that
 * installs that snapshot restores the record ({@link #restore}) and the core decides "duplicate or
 * new" as every other replica does (seed 002 (S-Paxos) footnote 5).
 *
 * <p>Built with a membership ({@link #ExecutionMirror(Membership, int)}), it also applies every
 * decided configuration command in order ({@link #applyMembership}) to its own copy of the
 * membership history, which the state carries after the record ({@link SPaxosDeliveryState}), as
 * {@code DeliveredMembership} does for Multi-Paxos.
 *
 * <p>Positions: {@link #apply} ignores instances below its position (covered by an installed
 * snapshot) and moves the position past the instance it applies.
 *
 * <p>Thread-safe by its monitor: the delivery thread applies and reads, the thread installing a
 * snapshot restores. Never blocks beyond the monitor.
 */
public final class ExecutionMirror {
    private ExecutedIds executed = new ExecutedIds();
    private final MembershipHistory history;
    private long position;

    /** A mirror of the executed ids alone: its state is the bare record. */
    public ExecutionMirror() {
        this.history = null;
    }

    /** A mirror that also keeps the membership history, from {@code initial} with window {@code alpha}. */
    public ExecutionMirror(Membership initial, int alpha) {
        this.history = new MembershipHistory(initial, alpha);
    }

    /**
     * Instance {@code instance} executed {@code ids}.
     *
     * @return {@code false} if the instance lies below the position (ignored)
     */
    public synchronized boolean apply(long instance, java.util.List<BatchId> ids) {
        if (instance < position) {
            return false;
        }
        for (BatchId id : ids) {
            executed.firstExecution(id);
        }
        if (history != null) {
            history.apply(instance, false, null);
        }
        position = instance + 1;
        return true;
    }

    /**
     * A configuration command decided at {@code instance} ({@link MembershipDecided}).
     *
     * @return {@code false} if the instance lies below the position (ignored)
     */
    public synchronized boolean applyMembership(long instance, ByteBuffer change) {
        if (instance < position) {
            return false;
        }
        if (history != null) {
            history.apply(instance, true, change.duplicate());
        }
        position = instance + 1;
        return true;
    }

    /** The record (and the membership history, if kept) as of the position: a snapshot's delivery state. */
    public synchronized byte[] state() {
        return history == null ? executed.toBytes() : new SPaxosDeliveryState(executed, history.encode()).toBytes();
    }

    /** The next instance this mirror applies. */
    public synchronized long position() {
        return position;
    }

    /**
     * A snapshot covering every instance below {@code instance}, with delivery state {@code state},
     * was installed. An older one than the position is ignored.
     *
     * A state without a membership history (written before there was one, or empty) leaves the
     * history as it is; a malformed history is skipped (decisions bring the changes again).
     *
     * @throws IllegalArgumentException if {@code state} is not an {@link SPaxosDeliveryState} (nothing changes)
     */
    public synchronized void restore(long instance, byte[] state) {
        if (instance < position) {
            return;
        }
        SPaxosDeliveryState s = SPaxosDeliveryState.fromBytes(state);
        executed = s.executed();
        position = instance;
        if (history != null && s.membership() != null) {
            try {
                history.restore(ByteBuffer.wrap(s.membership()));
            } catch (IllegalArgumentException malformed) {
                // The protocol thread counts it (SPaxosCore.skipTo); decisions bring the rest.
            }
        }
    }

    /** The latest membership of the mirror's history (null for a mirror without one). */
    public synchronized Membership latestMembership() {
        return history == null ? null : history.latest();
    }

    /** A copy of the record (tests). */
    public synchronized ExecutedIds executed() {
        return executed.copy();
    }
}
