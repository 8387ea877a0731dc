package dev.parallax.examples.volery;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A front end's session tick (the paper is silent on sessions; ZooKeeper's leader tracks them): the
 * sessions it holds connected, at its time. A global command, so that every partition takes the
 * same expiry decision at the same point of the order ({@link ZnodeSessions} rules 2-4): the listed
 * live sessions are touched, every overdue session expires and its ephemeral nodes are deleted
 * (firing their watches). The reply lists each listed session's status, one
 * {@link ZnodeSessions.Status#tag()} per session in {@link ZkReply#children()}, in the order listed,
 * then the number of live sessions in decimal.
 * A front end sends one every second while it holds sessions the order knows, and one for a single
 * session it is asked to resume or adopt. Immutable; safe from any thread; never blocks.
 *
 * @param sessions the listed session ids (copied in and out)
 * @param time     the front end's wall clock (ms), stamped by the entry point ({@link #withTime})
 */
public record SessionTick(long[] sessions, long time) implements SessionCommand {
    /** The most sessions one tick lists. */
    public static final int MAX_SESSIONS = 1 << 16;

    /**
     * @throws NullPointerException if sessions is null
     * @throws IllegalArgumentException if more than {@link #MAX_SESSIONS} are listed
     */
    public SessionTick {
        if (sessions.length > MAX_SESSIONS) {
            throw new IllegalArgumentException(sessions.length + " sessions in one tick, at most " + MAX_SESSIONS);
        }
        sessions = sessions.clone();
    }

    /** A tick listing {@code sessions}, without a time. */
    public SessionTick(long[] sessions) {
        this(sessions, 0L);
    }

    @Override
    public long[] sessions() {
        return sessions.clone();
    }

    @Override
    public byte opcode() {
        return OP_SESSION_TICK;
    }

    @Override
    public SessionTick withTime(long time) {
        return new SessionTick(sessions, time);
    }


    @Override
    public ZkReply applyTo(ZnodeTree tree, long zxid, long time, List<String> deleted) {
        return tree.tickSessions(sessions, zxid, time, deleted);
    }

    /** The statuses a tick's {@code reply} reports, in the order listed; empty for an error reply or bad tags. */
    public static List<ZnodeSessions.Status> statuses(ZkReply reply) {
        List<ZnodeSessions.Status> out = new ArrayList<>();
        if (!reply.isOk() || reply.children() == null || reply.children().isEmpty()) {
            return out;
        }
        List<String> tags = reply.children();
        for (String tag : tags.subList(0, tags.size() - 1)) {
            ZnodeSessions.Status s = tag.length() == 1 ? ZnodeSessions.Status.of(tag.charAt(0)) : null;
            if (s == null) {
                return new ArrayList<>();
            }
            out.add(s);
        }
        return out;
    }

    /** The number of live sessions a tick's {@code reply} reports; -1 for an error reply or a malformed one. */
    public static int liveSessions(ZkReply reply) {
        if (!reply.isOk() || reply.children() == null || reply.children().isEmpty()) {
            return -1;
        }
        try {
            return Integer.parseInt(reply.children().get(reply.children().size() - 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionTick t && Arrays.equals(sessions, t.sessions) && time == t.time;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(sessions) + Long.hashCode(time);
    }

    @Override
    public String toString() {
        return "SessionTick[" + sessions.length + " sessions, time=" + time + "]";
    }
}
