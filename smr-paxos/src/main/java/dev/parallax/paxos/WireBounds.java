package dev.parallax.paxos;

import java.util.List;

/**
 * The ranges a correct replica's view and instance numbers stay in, and the check that a
 * {@link PaxosMessage} respects them: the one validation rule for numbers that come from the wire
 * (wire input that lies). {@link PaxosMessageCodec} refuses a message that breaks
 * it ({@code MalformedMessageException}, so the transport closes the connection and counts a bad
 * frame); {@link MultiPaxosCore} ignores one (transports that hand messages over without a codec).
 *
 * <p>Views and instances are at least 0 and at most {@code 2^62 - 1}: a view or instance a
 * correct replica computes from an accepted number ({@code view + n}, {@code instance + 1},
 * {@code instance + catchUpMaxInstances}) then never overflows a {@code long}. The bound is out of
 * reach: a million view changes or instances a second for 146,000 years. Besides the ranges, a
 * {@code PrepareOk}'s {@code continueFrom} is {@link PaxosMessage.PrepareOk#COMPLETE} or an instance,
 * a {@code CatchUpQuery} asks {@code from <= to} (the answering core clamps the width to
 * {@link PaxosConfig#catchUpMaxInstances()}), a {@code RecoveryReply}'s {@code highest} is an
 * instance or {@code -1}, a {@code PreVoteReply}'s {@code candidateView} is a view, a read round is an instance-ranged
 * number and a {@code ReadIndexReply}'s position an instance or {@code -1} (a read's number is the
 * asker's opaque tag). Nothing else is checked here: these are the numbers loops and arithmetic
 * depend on, not the protocol's invariants (a peer is trusted to run the protocol; mutual TLS
 * between replicas authenticates it).
 *
 * <p>Stateless and thread-safe.
 */
public final class WireBounds {
    /** The highest view a message may carry: {@code 2^62 - 1}. */
    public static final long MAX_VIEW = (1L << 62) - 1;
    /** The highest instance a message may carry: {@code 2^62 - 1}. */
    public static final long MAX_INSTANCE = (1L << 62) - 1;

    private WireBounds() {
    }

    /** Whether {@code view} is in {@code [0, MAX_VIEW]}. */
    public static boolean isView(long view) {
        return view >= 0 && view <= MAX_VIEW;
    }

    /** Whether {@code instance} is in {@code [0, MAX_INSTANCE]}. */
    public static boolean isInstance(long instance) {
        return instance >= 0 && instance <= MAX_INSTANCE;
    }

    /**
     * What is wrong with {@code m}'s numbers, or {@code null} if they are all in range.
     *
     * @return a short description naming the field and its value, for the error or log line
     */
    public static String violation(PaxosMessage m) {
        if (!isView(m.view())) {
            return "view " + m.view() + " outside [0, " + MAX_VIEW + "]";
        }
        if (m instanceof PaxosMessage.Prepare p) {
            return instance("fromInstance", p.fromInstance());
        } else if (m instanceof PaxosMessage.PrepareOk ok) {
            String bad = instance("trimmedBelow", ok.trimmedBelow());
            if (bad == null && !ok.isComplete()) {
                bad = instance("continueFrom", ok.continueFrom());
            }
            return bad != null ? bad : accepted(ok.accepted());
        } else if (m instanceof PaxosMessage.Propose p) {
            return instance("instance", p.instance());
        } else if (m instanceof PaxosMessage.Accept a) {
            return instance("instance", a.instance());
        } else if (m instanceof PaxosMessage.Heartbeat h) {
            return instance("firstUndecided", h.firstUndecided());
        } else if (m instanceof PaxosMessage.CatchUpQuery q) {
            String bad = instance("from", q.from());
            if (bad == null) {
                bad = instance("to", q.to());
            }
            return bad == null && q.from() > q.to() ? "catch-up range [" + q.from() + ", " + q.to() + ") is reversed" : bad;
        } else if (m instanceof PaxosMessage.CatchUpReply r) {
            String bad = instance("firstAvailable", r.firstAvailable());
            for (int i = 0; bad == null && i < r.decided().size(); i++) {
                bad = instance("decided instance", r.decided().get(i).instance());
            }
            return bad;
        } else if (m instanceof PaxosMessage.HeartbeatAck a) {
            return instance("firstUndecided", a.firstUndecided());
        } else if (m instanceof PaxosMessage.PreVote pv) {
            return instance("firstUndecided", pv.firstUndecided());
        } else if (m instanceof PaxosMessage.TimeoutNow t) {
            return instance("firstUndecided", t.firstUndecided());
        } else if (m instanceof PaxosMessage.PreVoteReply r) {
            return isView(r.candidateView()) ? null
                    : "candidate view " + r.candidateView() + " outside [0, " + MAX_VIEW + "]";
        } else if (m instanceof PaxosMessage.ReadConfirm c) {
            return instance("round", c.round());
        } else if (m instanceof PaxosMessage.ReadConfirmAck a) {
            return instance("round", a.round());
        } else if (m instanceof PaxosMessage.ReadIndexReply r) {
            return r.position() == PaxosMessage.ReadIndexReply.REFUSED ? null : instance("position", r.position());
        } else if (m instanceof PaxosMessage.RecoveryReply r) {
            if (!isView(r.fence())) {
                return "fence " + r.fence() + " outside [0, " + MAX_VIEW + "]";
            }
            return r.highest() == -1 ? null : instance("highest", r.highest());
        }
        return null;
    }

    private static String accepted(List<PaxosMessage.Accepted> accepted) {
        for (PaxosMessage.Accepted a : accepted) {
            String bad = instance("accepted instance", a.instance());
            if (bad != null) {
                return bad;
            }
            if (!isView(a.view())) {
                return "accepted view " + a.view() + " outside [0, " + MAX_VIEW + "]";
            }
        }
        return null;
    }

    private static String instance(String field, long value) {
        return isInstance(value) ? null : field + " " + value + " outside [0, " + MAX_INSTANCE + "]";
    }
}
