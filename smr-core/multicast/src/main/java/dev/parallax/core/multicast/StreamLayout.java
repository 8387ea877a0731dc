package dev.parallax.core.multicast;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastPosition;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which streams a {@link StreamMulticast} has, which stream orders each group, and which
 * processes run each stream (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2: groups are
 * mapped to rings, and a learner joins only the rings of the groups it subscribes to).
 *
 * <ul>
 *   <li>Group {@code g} is ordered in stream {@code streamOf(g)} (default {@code g}); several
 *       groups may share a stream (their messages are told apart by their group set).</li>
 *   <li>The streams are the distinct streams of the offered groups, in increasing id, and — when
 *       there are several — the global stream {@link MulticastPosition#GLOBAL_STREAM} last.</li>
 *   <li>A message to one stream's groups only is ordered in that stream; a message to groups of
 *       several streams in the global stream.</li>
 *   <li>Each stream runs on a set of processes (default every process 0..processes-1); a process
 *       runs the streams it is a member of. It may subscribe to a group when it runs the group's
 *       stream and the global stream (if there is one): every subscription merges the global
 *       stream.</li>
 * </ul>
 * Immutable and thread-safe.
 */
final class StreamLayout {
    private final int self;
    private final int[] ids;
    private final int[] indexOf = new int[MulticastPosition.GLOBAL_STREAM + 1];
    private final int[] streamOfGroup = new int[GroupSet.MAX_GROUP + 1];
    private final int[][] members;
    private final boolean[][] member;
    private final long subscribable;

    private StreamLayout(int self, int[] ids, int[] streamOfGroup, int[][] members, int processes, GroupSet groups) {
        this.self = self;
        this.ids = ids;
        Arrays.fill(indexOf, -1);
        for (int i = 0; i < ids.length; i++) {
            indexOf[ids[i]] = i;
        }
        System.arraycopy(streamOfGroup, 0, this.streamOfGroup, 0, streamOfGroup.length);
        this.members = members;
        this.member = new boolean[ids.length][processes];
        for (int i = 0; i < ids.length; i++) {
            for (int p : members[i]) {
                member[i][p] = true;
            }
        }
        boolean global = ids.length > 1 && ids[ids.length - 1] == MulticastPosition.GLOBAL_STREAM;
        long bits = 0;
        if (!global || member[ids.length - 1][self]) {
            for (int g = groups.first(); g >= 0; g = groups.next(g)) {
                if (member[indexOf[streamOfGroup[g]]][self]) {
                    bits |= 1L << g;
                }
            }
        }
        this.subscribable = bits;
    }

    /**
     * @param groupStreams  group → stream id (0..{@link GroupSet#MAX_GROUP}); groups not named map to themselves
     * @param streamMembers stream id → its processes; streams not named run on every process
     * @throws IllegalArgumentException if a mapping names a group not offered or a stream out of
     *                                  range, or a member set names a stream that does not exist,
     *                                  is empty, repeats a process or names one out of range
     */
    static StreamLayout of(int self, int processes, GroupSet groups, Map<Integer, Integer> groupStreams,
                           Map<Integer, int[]> streamMembers) {
        int[] streamOf = new int[GroupSet.MAX_GROUP + 1];
        Arrays.fill(streamOf, -1);
        for (Map.Entry<Integer, Integer> e : groupStreams.entrySet()) {
            if (!groups.contains(e.getKey())) {
                throw new IllegalArgumentException("group " + e.getKey() + " is mapped to stream " + e.getValue()
                        + " but not offered (groups " + groups + ")");
            }
            if (e.getValue() < 0 || e.getValue() > GroupSet.MAX_GROUP) {
                throw new IllegalArgumentException("group " + e.getKey() + " is mapped to stream " + e.getValue()
                        + ": a group's stream id must be 0.." + GroupSet.MAX_GROUP);
            }
        }
        TreeSet<Integer> distinct = new TreeSet<>();
        for (int g = groups.first(); g >= 0; g = groups.next(g)) {
            streamOf[g] = groupStreams.getOrDefault(g, g);
            distinct.add(streamOf[g]);
        }
        int[] ids = new int[distinct.size() + (distinct.size() > 1 ? 1 : 0)];
        int n = 0;
        for (int s : distinct) {
            ids[n++] = s;
        }
        if (distinct.size() > 1) {
            ids[n] = MulticastPosition.GLOBAL_STREAM;
        }
        int[][] members = new int[ids.length][];
        for (Map.Entry<Integer, int[]> e : streamMembers.entrySet()) {
            int stream = e.getKey();
            if (Arrays.stream(ids).noneMatch(id -> id == stream)) {
                throw new IllegalArgumentException("members given for stream " + stream + ", which is not a stream of "
                        + "groups " + groups + " (streams " + Arrays.toString(ids) + ")");
            }
        }
        for (int i = 0; i < ids.length; i++) {
            int[] given = streamMembers.get(ids[i]);
            members[i] = given == null ? everyProcess(processes) : checked(ids[i], given, processes);
        }
        return new StreamLayout(self, ids, streamOf, members, processes, groups);
    }

    private static int[] everyProcess(int processes) {
        int[] all = new int[processes];
        Arrays.setAll(all, p -> p);
        return all;
    }

    private static int[] checked(int stream, int[] given, int processes) {
        if (given.length == 0) {
            throw new IllegalArgumentException("stream " + stream + " has no members");
        }
        int[] sorted = given.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            if (sorted[i] < 0 || sorted[i] >= processes) {
                throw new IllegalArgumentException("stream " + stream + ": member " + sorted[i] + " is not a process 0.."
                        + (processes - 1));
            }
            if (i > 0 && sorted[i] == sorted[i - 1]) {
                throw new IllegalArgumentException("stream " + stream + ": member " + sorted[i] + " is named twice");
            }
        }
        return sorted;
    }

    /** The stream ids, in increasing id (the global stream last, if any). */
    int[] ids() {
        return ids.clone();
    }

    /** How many streams. */
    int count() {
        return ids.length;
    }

    /** The index of stream id {@code stream}, -1 if there is no such stream. */
    int index(int stream) {
        return stream >= 0 && stream < indexOf.length ? indexOf[stream] : -1;
    }

    /** The index of the stream a message to {@code target} (offered groups) is ordered in. */
    int indexFor(GroupSet target) {
        int stream = streamOfGroup[target.first()];
        for (int g = target.next(target.first()); g >= 0; g = target.next(g)) {
            if (streamOfGroup[g] != stream) {
                return indexOf[MulticastPosition.GLOBAL_STREAM];
            }
        }
        return indexOf[stream];
    }

    /** The index of the stream ordering group {@code g} (offered). */
    int indexOfGroup(int g) {
        return indexOf[streamOfGroup[g]];
    }

    /** The index of the global stream, -1 without one. */
    int globalIndex() {
        return indexOf[MulticastPosition.GLOBAL_STREAM];
    }

    /** Whether this process runs the stream at {@code index}. */
    boolean runs(int index) {
        return member[index][self];
    }

    /** Whether {@code process} (any id, even out of range) is a member of the stream at {@code index}. */
    boolean isMember(int index, int process) {
        return process >= 0 && process < member[index].length && member[index][process];
    }

    /** Whether every process runs every stream (the default). */
    boolean fullMembership() {
        for (int[] m : members) {
            if (m.length != member[0].length) {
                return false;
            }
        }
        return true;
    }

    /** The members of the stream at {@code index} (process ids, increasing); do not modify. */
    int[] members(int index) {
        return members[index];
    }

    /** The bits of the offered groups this process may subscribe to (it runs their streams and the global one); may be 0. */
    long subscribable() {
        return subscribable;
    }

    /** {@code bits} as a group set's text; {@code {}} for none. */
    static String describe(long bits) {
        return bits == 0 ? "{}" : GroupSet.ofBits(bits).toString();
    }
}
