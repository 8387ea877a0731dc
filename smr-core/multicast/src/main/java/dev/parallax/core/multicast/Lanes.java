package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;

import java.util.function.IntUnaryOperator;

/**
 * A {@link MulticastBroadcast}'s lanes: k + 1 of them (one with k = 1), lane i &lt; k proposing
 * into group stream i (a batch of commands to groups ordered by stream i alone), lane k into the
 * global stream (commands to groups of several streams, or to a group not offered).
 *
 * <p>Immutable and thread-safe; nothing blocks.
 */
final class Lanes {
    private final GroupSet groups;
    private final GroupSet[] laneGroups;
    /** Group g's stream (for offered groups), and each stream's groups as bits. */
    private final int[] groupStream = new int[GroupSet.MAX_GROUP + 1];
    private final long[] streamGroupBits;

    /**
     * @throws IllegalArgumentException if {@code streams < 1} or a group maps outside the streams
     */
    Lanes(GroupSet groups, int streams, IntUnaryOperator streamOfGroup) {
        if (streams < 1) {
            throw new IllegalArgumentException("streams must be >= 1, got " + streams);
        }
        this.groups = groups;
        this.laneGroups = new GroupSet[streams > 1 ? streams + 1 : 1];
        this.streamGroupBits = new long[streams];
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            int stream = streamOfGroup.applyAsInt(g);
            if (stream < 0 || stream >= streams) {
                throw new IllegalArgumentException("group " + g + " maps to stream " + stream + " of " + streams);
            }
            groupStream[g] = stream;
            streamGroupBits[stream] |= 1L << g;
        }
        for (int i = 0; i < streams; i++) {
            laneGroups[i] = GroupSet.ofBits(streamGroupBits[i]);
        }
        if (streams > 1) {
            laneGroups[streams] = groups;
        }
    }

    /** How many lanes. */
    int count() {
        return laneGroups.length;
    }

    /** The groups lane {@code lane} multicasts to. */
    GroupSet groups(int lane) {
        return laneGroups[lane];
    }

    /**
     * Groups all ordered by stream i: lane i; anything else (groups of several streams, a group
     * not offered, no group): the global lane k (lane 0 with one stream).
     */
    int laneOf(GroupSet target) {
        long bits = target.bits();
        if (bits == 0 || (bits & ~groups.bits()) != 0) {
            return laneGroups.length - 1;
        }
        int stream = groupStream[target.first()];
        return (bits & ~streamGroupBits[stream]) == 0 ? stream : laneGroups.length - 1;
    }
}
