package dev.parallax.paxos.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;

/**
 * One subscription's place in the merge: per stream it merges, the next instance to consume, and
 * the point its last snapshot covers. Every field is guarded by the {@link DecidedStreams} lock.
 */
final class MergeCursor {
    final GroupSet groups;
    /** Indexed like {@link DecidedStreams}' streams; false for the streams this cursor does not merge. */
    final boolean[] merged;
    final long[] next;
    final long[] snapshotAt;
    boolean closed;

    MergeCursor(GroupSet groups, boolean[] merged) {
        this.groups = groups;
        this.merged = merged;
        this.next = new long[merged.length];
        this.snapshotAt = new long[merged.length];
    }

    /** The position the cursor stands at, naming every stream it merges. */
    MulticastPosition position(int[] streamIds) {
        MulticastPosition p = MulticastPosition.START;
        for (int i = 0; i < merged.length; i++) {
            if (merged[i]) {
                p = p.with(streamIds[i], next[i]);
            }
        }
        return p;
    }
}
