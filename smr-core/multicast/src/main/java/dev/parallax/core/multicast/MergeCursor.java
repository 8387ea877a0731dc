package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;

/**
 * One subscription's place in the merge: per stream it merges, the next index to consume, the
 * instance delivery resumes from ({@link Numbering#LOGICAL} only; the index itself otherwise), and
 * the point its last snapshot covers. Every field is guarded by the {@link DecidedStreams} lock.
 */
final class MergeCursor {
    final GroupSet groups;
    /** Indexed like {@link DecidedStreams}' streams; false for the streams this cursor does not merge. */
    final boolean[] merged;
    final long[] next;
    /** Per stream, the instance numbering resumes from at {@link #next} (see {@link MulticastPosition#resumeStream}). */
    final long[] resume;
    /**
     * Per stream, the record of the messages the cursor passed (the stream's {@link OriginSequences}
     * as of {@link #next}); null where unknown (the cursor started at a position without a record).
     */
    final OriginSequences[] passed;
    final long[] snapshotAt;
    final long[] snapshotResume;
    boolean closed;
    /** Reads waiting for the cursor to pass their points ({@link DecidedStreams#whenPassed}). */
    final java.util.List<DecidedStreams.ReadMark> marks = new java.util.ArrayList<>();

    MergeCursor(GroupSet groups, boolean[] merged) {
        this.groups = groups;
        this.merged = merged;
        this.next = new long[merged.length];
        this.resume = new long[merged.length];
        this.passed = new OriginSequences[merged.length];
        this.snapshotAt = new long[merged.length];
        this.snapshotResume = new long[merged.length];
    }

    /**
     * The position the cursor stands at, naming every stream it merges (and, if {@code logical},
     * each one's resume instance).
     */
    MulticastPosition position(int[] streamIds, boolean logical) {
        MulticastPosition p = MulticastPosition.START;
        for (int i = 0; i < merged.length; i++) {
            if (merged[i]) {
                p = p.with(streamIds[i], next[i]);
                if (logical) {
                    p = p.with(MulticastPosition.resumeStream(streamIds[i]), resume[i]);
                }
            }
        }
        return p;
    }
}
