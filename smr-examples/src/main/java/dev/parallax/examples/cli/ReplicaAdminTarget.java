package dev.parallax.examples.cli;

import dev.parallax.core.replica.Replica;
import dev.parallax.core.spi.MembershipAdmin;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The admin routes' view of a running {@link Replica}: its leader hint, executed position and
 * membership from the replica, and per ordered stream (the {@code protocol} tag of its meters: one
 * stream for Multi-Paxos, S-Paxos, U-Ring and M-Ring, one per ring or group and a global one for
 * Multi-Ring Paxos and the reference multicast) what the ordering's gauges expose:
 * {@code parallax.paxos.leader}, {@code .view} and {@code .first.undecided} (Multi-Paxos, S-Paxos,
 * the multicast's groups), {@code parallax.ring.coordinator}, {@code .round},
 * {@code .position} and {@code .first.undecided} (the Ring Paxos variants), and
 * {@code parallax.protocol.recovering}.
 *
 * <p>Thread-safe: reads volatile state and gauges only; never blocks.
 */
final class ReplicaAdminTarget implements AdminTarget {
    private final Replica replica;

    ReplicaAdminTarget(Replica replica) {
        this.replica = replica;
    }

    @Override
    public int id() {
        return replica.config().id();
    }

    @Override
    public String ordering() {
        return replica.orderingName();
    }

    /** The status key listing the membership's parts ({@link MembershipAdmin#parts()}), when it has some. */
    static final String MEMBERSHIP_PARTS = "membership.parts";

    @Override
    public Map<String, String> status() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("id", Integer.toString(id()));
        s.put("ordering", ordering());
        s.put("healthy", replica.failure().isPresent() ? "no" : "yes");
        s.put("leader", Integer.toString(replica.leaderHint()));
        s.put("executed", Long.toString(replica.executedBelow() - 1));
        s.put("membership", membership().map(MembershipAdmin::members).orElse(AdminRoutes.UNSUPPORTED));
        membership().map(MembershipAdmin::parts).filter(p -> !p.isEmpty())
                .ifPresent(p -> s.put(MEMBERSHIP_PARTS, String.join(",", p.keySet())));
        for (Map.Entry<String, Map<String, Double>> stream : streams().entrySet()) {
            Map<String, Double> g = stream.getValue();
            String prefix = "stream." + stream.getKey() + ".";
            s.put(prefix + "role", role(g));
            Double view = g.containsKey("parallax.paxos.view") ? g.get("parallax.paxos.view") : g.get("parallax.ring.round");
            if (view != null) {
                s.put(prefix + "view", Long.toString(view.longValue()));
            }
            Double firstUndecided = g.containsKey("parallax.paxos.first.undecided") ? g.get("parallax.paxos.first.undecided")
                    : g.get("parallax.ring.first.undecided");
            if (firstUndecided != null) {
                s.put(prefix + "decided", Long.toString(firstUndecided.longValue() - 1));
            }
        }
        return s;
    }

    /** The role in one stream, from what its gauges say. */
    private static String role(Map<String, Double> g) {
        if (is(g, "parallax.protocol.recovering")) {
            return "recovering";
        }
        if (g.containsKey("parallax.paxos.leader")) {
            return is(g, "parallax.paxos.leader") ? "leader" : "follower";
        }
        if (g.containsKey("parallax.ring.coordinator")) {
            if (is(g, "parallax.ring.coordinator")) {
                return "coordinator";
            }
            Double position = g.get("parallax.ring.position");
            return position != null && position < 0 ? "learner" : "acceptor";
        }
        return "member";
    }

    private static boolean is(Map<String, Double> g, String name) {
        Double v = g.get(name);
        return v != null && v == 1.0;
    }

    /**
     * The ordering gauges in the replica's registry by stream (the {@code protocol} tag), in name
     * order. The registry must be this replica's alone, as {@code parallax replica} gives it: the
     * {@code replica} tag cannot tell replicas apart (a Multi-Ring ring tags its member index in
     * that ring).
     */
    private Map<String, Map<String, Double>> streams() {
        Map<String, Map<String, Double>> streams = new TreeMap<>();
        for (Meter m : replica.meterRegistry().getMeters()) {
            String name = m.getId().getName();
            String protocol = m.getId().getTag("protocol");
            if (!(m instanceof Gauge gauge) || protocol == null
                    || !(name.startsWith("parallax.paxos.") || name.startsWith("parallax.ring.")
                    || name.equals("parallax.protocol.recovering"))) {
                continue;
            }
            streams.computeIfAbsent(protocol, k -> new TreeMap<>()).put(name, gauge.value());
        }
        // A stream is one the ordering exposes a role of (the recovering gauge alone names runtimes, not streams).
        streams.values().removeIf(g -> g.keySet().stream().noneMatch(n -> n.startsWith("parallax.paxos.") || n.startsWith("parallax.ring.")));
        return streams;
    }

    @Override
    public Optional<MembershipAdmin> membership() {
        return replica.membershipAdmin();
    }

    @Override
    public void requestSnapshot() {
        replica.requestSnapshot();
    }
}
