package dev.parallax.core.multicast;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.spi.MembershipAdmin;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The membership of a replica group ordered by several streams (Multi-Ring Paxos, seed 003 ch. 5):
 * every stream decides its own member set in its own order (each one change at a time, taking
 * effect at an instance of that stream), so a change to the group is the same change in every
 * stream the replica runs, one stream after the other. The streams are its {@link #parts()}, named
 * as their channels; each has its own leader, so {@code parallax admin} sends a change to each
 * part's leader in turn. Asked here for the whole group, a change goes through every part at this
 * replica and stops at the first refusal (typically {@link NotTheLeader} of a part another replica
 * leads), naming the parts that took it; a part the request does not concern (another partition's
 * ring under S-SMR) answers {@link StreamMembership#UNCHANGED}, and a request no part concerns is
 * refused. The group's membership ({@link #members()}) is {@link Membership#common} of the parts: a
 * voter votes in every part it belongs to; a change's answer is what every part decided.
 *
 * <p>Stream membership is per stream and never moves state between streams or partitions.
 *
 * <p>Threads: the parts are set once, on the thread that builds the streams ({@link #started});
 * every other method from any thread, never blocking (futures complete on the streams' protocol
 * threads).
 */
public final class StreamsMembership implements MembershipAdmin {
    private volatile Map<String, StreamMembership> parts = Map.of();

    /** The streams run here, built: their member sets, in stream order. */
    void started(Map<String, StreamMembership> built) {
        this.parts = Collections.unmodifiableMap(new LinkedHashMap<>(built));
    }

    @Override
    public Map<String, MembershipAdmin> parts() {
        return Collections.unmodifiableMap(parts);
    }

    @Override
    public CompletableFuture<String> addLearner(int id, String hostPort) {
        return each(p -> p.addLearner(id, hostPort));
    }

    @Override
    public CompletableFuture<String> promote(int id) {
        return each(p -> p.promote(id));
    }

    @Override
    public CompletableFuture<String> remove(int id) {
        return each(p -> p.remove(id));
    }

    @Override
    public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
        return each(p -> p.replace(oldId, newId, hostPort));
    }

    /**
     * Hands over every part this replica leads, all at once (a part's hand-over holds its stream
     * back, and a merge of the streams waits for the slowest): to replica {@code id}, or, for -1,
     * each part's best caught-up voter. A part another replica leads ({@link NotTheLeader}) or that
     * {@code id} cannot lead ({@link StreamMembership#UNCHANGED}) is left alone; another refusal,
     * the first in part order, fails the request, naming the parts handed over. Refused with
     * {@link NotTheLeader} if this replica leads no part (to hand over one part that another replica
     * leads, ask that replica, or name the part).
     *
     * @return the answers of the parts handed over, in part order, joined by "; "
     */
    @Override
    public CompletableFuture<String> transferLeadership(int id) {
        Map<String, StreamMembership> now = parts;
        if (now.isEmpty()) {
            return CompletableFuture.failedFuture(new MembershipChangeRefused("the streams have not started yet"));
        }
        Map<String, CompletableFuture<String>> asked = new LinkedHashMap<>();
        now.forEach((name, part) -> {
            CompletableFuture<String> one;
            try {
                one = part.transferLeadership(id);
            } catch (RuntimeException ex) {
                one = CompletableFuture.failedFuture(ex);
            }
            asked.put(name, one);
        });
        return CompletableFuture.allOf(asked.values().stream().map(f -> f.handle((a, t) -> a))
                .toArray(CompletableFuture[]::new)).thenApply(all -> handedOver(id, asked));
    }

    /** The outcome of a transfer once every part answered ({@link #transferLeadership}). */
    private static String handedOver(int id, Map<String, CompletableFuture<String>> asked) {
        List<String> done = new ArrayList<>();
        List<String> took = new ArrayList<>();
        int hint = -1;
        Throwable refused = null;
        String refusedBy = null;
        for (Map.Entry<String, CompletableFuture<String>> e : asked.entrySet()) {
            try {
                String answer = e.getValue().join();
                if (answer == null || !answer.startsWith(StreamMembership.UNCHANGED)) {
                    done.add(e.getKey() + ": " + answer);
                    took.add(e.getKey());
                }
            } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException failure) {
                Throwable cause = failure.getCause() == null ? failure : failure.getCause();
                if (cause instanceof NotTheLeader n) {
                    hint = hint < 0 ? n.leaderHint() : hint;
                } else if (refused == null) {
                    refused = cause;
                    refusedBy = e.getKey();
                }
            }
        }
        if (refused != null) {
            throw refusal(refusedBy, took, refused);
        }
        if (done.isEmpty()) {
            throw new NotTheLeader("this replica leads none of " + asked.keySet() + (id < 0 ? "" : " that replica " + id
                    + " may lead") + "; ask the replica that leads a part, naming the part", hint);
        }
        return String.join("; ", done);
    }

    /** What every part agrees on, then each part's own line. */
    @Override
    public String members() {
        Map<String, StreamMembership> now = parts;
        if (now.isEmpty()) {
            return "voters=[] learners=[] (the streams have not started)";
        }
        List<Membership> each = new ArrayList<>();
        StringBuilder detail = new StringBuilder();
        now.forEach((name, part) -> {
            Membership m = part.membership();
            each.add(m);
            detail.append(detail.length() == 0 ? "" : "; ").append(name).append(": ").append(m.describe());
        });
        return Membership.common(each).describe() + " (" + detail + ")";
    }

    private CompletableFuture<String> each(Function<MembershipAdmin, CompletableFuture<String>> request) {
        Map<String, StreamMembership> now = parts;
        if (now.isEmpty()) {
            return CompletableFuture.failedFuture(new MembershipChangeRefused("the streams have not started yet"));
        }
        CompletableFuture<String> chain = CompletableFuture.completedFuture("");
        List<String> done = new ArrayList<>();
        java.util.Set<String> unchanged = new java.util.HashSet<>();
        for (Map.Entry<String, StreamMembership> e : now.entrySet()) {
            chain = chain.thenCompose(sofar -> {
                CompletableFuture<String> one;
                try {
                    one = request.apply(e.getValue());
                } catch (RuntimeException ex) {
                    one = CompletableFuture.failedFuture(ex);
                }
                return one.handle((answer, failure) -> {
                    if (failure != null) {
                        throw refusal(e.getKey(), done, failure);
                    }
                    done.add(e.getKey());
                    if (answer != null && answer.startsWith(StreamMembership.UNCHANGED)) {
                        unchanged.add(e.getKey());
                    }
                    return answer;
                });
            });
        }
        return chain.thenApply(last -> {
            if (done.stream().allMatch(unchanged::contains)) {
                throw new MembershipChangeRefused("no part concerns the replicas named: none of " + now.keySet()
                        + " can have them as members");
            }
            List<Membership> decided = new ArrayList<>();
            now.values().forEach(p -> decided.add(p.decidedMembership()));
            return Membership.common(decided).describe();
        });
    }

    /** The part's refusal, naming the parts that took the request before it. */
    private static RuntimeException refusal(String part, List<String> done, Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        String took = done.isEmpty() ? "" : " (" + String.join(", ", done) + " took it)";
        if (cause instanceof NotTheLeader n) {
            return new NotTheLeader(part + ": " + n.getMessage() + took, n.leaderHint());
        }
        if (cause instanceof MembershipChangeRefused r) {
            return new MembershipChangeRefused(part + ": " + r.getMessage() + took);
        }
        return new java.util.concurrent.CompletionException(cause);
    }
}
