package dev.parallax.core.testkit.multicast;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The safety and liveness checks of an atomic multicast run with many learners (Multi-Ring Paxos;
 * seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 §5.2: agreement, integrity, validity and the
 * acyclic order of Prop. 4), fed as the run goes:
 * <ul>
 *   <li><b>Integrity / exactly-once</b> (on every delivery): a learner incarnation delivers a message
 *       at most once, only a message that was multicast, and only if it was addressed to a group it
 *       subscribes to.</li>
 *   <li><b>Agreement per subscription</b> (on every delivery): learners with the same subscription
 *       deliver prefixes of one sequence (a restarted learner starts that sequence again).</li>
 *   <li><b>Acyclic order</b> ({@link #assertAcyclic}): the union of every learner incarnation's
 *       delivery order has no cycle, hence any two learners deliver their common messages in the
 *       same order.</li>
 *   <li><b>Uniform agreement and validity</b> ({@link #missing}, {@link #assertComplete}): after
 *       the heal, every live learner delivered every message some learner delivered and every
 *       message a live origin multicast, that is addressed to one of its groups.</li>
 * </ul>
 *
 * <p>Not thread-safe: the simulator's thread only.
 */
public final class MulticastDeliveryChecker {

    /** One learner incarnation's deliveries. */
    public static final class Learner {
        private final String name;
        private final long subscription;
        private final List<Long> order = new ArrayList<>();
        private final List<Long> times = new ArrayList<>();
        private final Set<Long> delivered = new HashSet<>();

        private Learner(String name, long subscription) {
            this.name = name;
            this.subscription = subscription;
        }

        public String name() {
            return name;
        }

        public long subscription() {
            return subscription;
        }

        /** The message ids in delivery order. */
        public List<Long> order() {
            return order;
        }

        /** The simulated time of each delivery, as {@link #order}. */
        public List<Long> times() {
            return times;
        }

        public boolean delivered(long id) {
            return delivered.contains(id);
        }

        @Override
        public String toString() {
            return name + " " + Long.toBinaryString(subscription) + " (" + order.size() + " delivered)";
        }
    }

    private final Map<Long, Long> groupsOf = new HashMap<>();
    private final Map<Long, List<Long>> sequenceOf = new HashMap<>();
    private final List<Learner> learners = new ArrayList<>();
    private final Set<Long> deliveredByAny = new LinkedHashSet<>();

    /** Message {@code id} was multicast to {@code groupBits} (before any delivery of it). */
    public void multicast(long id, long groupBits) {
        if (groupBits == 0) {
            throw new IllegalArgumentException("message " + id + " to no group");
        }
        if (groupsOf.putIfAbsent(id, groupBits) != null) {
            throw new AssertionError("message id " + id + " multicast twice");
        }
    }

    /** A new learner incarnation named {@code name} subscribing to {@code subscription}. */
    public Learner learner(String name, long subscription) {
        Learner l = new Learner(name, subscription);
        learners.add(l);
        return l;
    }

    /** {@code l} delivered message {@code id} at {@code now}. */
    public void delivered(Learner l, long id, long now) {
        Long groups = groupsOf.get(id);
        if (groups == null) {
            throw new AssertionError("integrity: " + l.name + " delivered message " + id + ", never multicast");
        }
        if ((groups & l.subscription) == 0) {
            throw new AssertionError("integrity: " + l.name + " subscribed to " + Long.toBinaryString(l.subscription)
                    + " delivered message " + id + " for groups " + Long.toBinaryString(groups));
        }
        if (!l.delivered.add(id)) {
            throw new AssertionError("exactly-once: " + l.name + " delivered message " + id + " twice (at positions "
                    + l.order.indexOf(id) + " and " + l.order.size() + ")");
        }
        int at = l.order.size();
        l.order.add(id);
        l.times.add(now);
        deliveredByAny.add(id);
        List<Long> seq = sequenceOf.computeIfAbsent(l.subscription, s -> new ArrayList<>());
        if (at < seq.size()) {
            if (seq.get(at) != id) {
                throw new AssertionError("agreement: " + l.name + " delivered message " + id + " at position " + at
                        + " where another learner of groups " + Long.toBinaryString(l.subscription) + " delivered "
                        + seq.get(at));
            }
        } else {
            seq.add(id);
        }
    }

    /** Every learner incarnation so far. */
    public List<Learner> learners() {
        return learners;
    }

    /** How many messages were multicast. */
    public int multicasts() {
        return groupsOf.size();
    }

    /** The group bits message {@code id} was multicast to (0: never multicast). */
    public long groupsOf(long id) {
        return groupsOf.getOrDefault(id, 0L);
    }

    /**
     * The union of every learner incarnation's delivery order (edges between consecutive deliveries)
     * has no cycle; otherwise names two learners that deliver two messages in opposite orders.
     */
    public void assertAcyclic() {
        Map<Long, Set<Long>> out = new HashMap<>();
        Map<Long, Integer> in = new HashMap<>();
        for (long id : deliveredByAny) {
            in.put(id, 0);
        }
        for (Learner l : learners) {
            for (int i = 1; i < l.order.size(); i++) {
                long a = l.order.get(i - 1);
                long b = l.order.get(i);
                if (out.computeIfAbsent(a, x -> new HashSet<>()).add(b)) {
                    in.merge(b, 1, Integer::sum);
                }
            }
        }
        ArrayDeque<Long> ready = new ArrayDeque<>();
        in.forEach((id, n) -> {
            if (n == 0) {
                ready.add(id);
            }
        });
        int sorted = 0;
        while (!ready.isEmpty()) {
            long id = ready.poll();
            sorted++;
            for (long next : out.getOrDefault(id, Set.of())) {
                if (in.merge(next, -1, Integer::sum) == 0) {
                    ready.add(next);
                }
            }
        }
        if (sorted != in.size()) {
            throw new AssertionError("order: the union of the delivery orders has a cycle (" + (in.size() - sorted)
                    + " of " + in.size() + " messages on or behind one); " + oppositePair());
        }
    }

    /** Two learners and two messages they deliver in opposite orders, if any (for failure messages). */
    private String oppositePair() {
        for (int i = 0; i < learners.size(); i++) {
            Map<Long, Integer> pos = new HashMap<>();
            List<Long> a = learners.get(i).order;
            for (int k = 0; k < a.size(); k++) {
                pos.put(a.get(k), k);
            }
            for (int j = i + 1; j < learners.size(); j++) {
                List<Long> b = learners.get(j).order;
                int last = -1;
                long lastId = -1;
                for (long id : b) {
                    Integer p = pos.get(id);
                    if (p == null) {
                        continue;
                    }
                    if (p < last) {
                        return learners.get(i).name + " delivers " + id + " before " + lastId + ", "
                                + learners.get(j).name + " after";
                    }
                    last = p;
                    lastId = id;
                }
            }
        }
        return "no two learners disagree on a pair (the cycle spans three or more)";
    }

    /**
     * What {@code l} has not delivered of {@code required} (messages a live origin multicast) and of
     * what any learner delivered, restricted to its groups.
     */
    public List<Long> missing(Learner l, Iterable<Long> required) {
        List<Long> out = new ArrayList<>();
        Set<Long> want = new LinkedHashSet<>(deliveredByAny);
        required.forEach(want::add);
        for (long id : want) {
            if ((groupsOf.getOrDefault(id, 0L) & l.subscription) != 0 && !l.delivered.contains(id)) {
                out.add(id);
            }
        }
        return out;
    }

    /**
     * Uniform agreement and validity at the end: every learner of {@code live} delivered every
     * message of its groups in {@code required} and every one that any learner delivered; learners of
     * {@code live} with the same subscription delivered the same sequence.
     */
    public void assertComplete(List<Learner> live, Iterable<Long> required) {
        for (Learner l : live) {
            List<Long> missing = missing(l, required);
            if (!missing.isEmpty()) {
                throw new AssertionError("validity: " + l + " misses " + missing.size() + " messages of its groups, "
                        + "first " + missing.subList(0, Math.min(5, missing.size())));
            }
        }
        Map<Long, Learner> bySubscription = new HashMap<>();
        for (Learner l : live) {
            Learner other = bySubscription.putIfAbsent(l.subscription, l);
            if (other != null && !other.order.equals(l.order)) {
                throw new AssertionError("agreement: " + other + " and " + l + " delivered different sequences");
            }
        }
    }
}
