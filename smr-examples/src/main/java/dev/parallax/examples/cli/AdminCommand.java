package dev.parallax.examples.cli;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ClusterSecret;
import dev.parallax.core.config.Member;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code parallax admin --config FILE <subcommand>}: the operator's view and control of a running
 * cluster, over the admin routes of each replica's metrics endpoint ({@link AdminRoutes}; the
 * endpoints are the cluster file's {@code metrics=} or {@code --metrics}). {@code status} and
 * {@code members} read every replica; {@code snapshot} asks every replica (or {@code --replica})
 * for a snapshot now; {@code add}, {@code promote}, {@code remove}, {@code replace} and
 * {@code transfer-leader} ask the ordering's {@code MembershipAdmin} through {@code --replica}, or
 * the first replica in id order that is reachable and does not answer that it is not the leader;
 * where the membership has parts that each change on their own (Multi-Ring's rings, listed as
 * {@code membership.parts} in the status), the request goes to each part in turn, each to its own leader.
 * Mutating requests are signed with the cluster secret when the file names one ({@link AdminAuth}).
 *
 * <p>Exit codes: 0 done (for {@code status} and {@code members}: every replica answered); 1 the
 * cluster refused or could not do it (unsupported by the ordering, refused by it, unauthenticated,
 * not decided in time, unreachable); 2 a usage or configuration error (malformed argument, unknown
 * replica id, no metrics endpoints). Blocks on HTTP requests; one command per instance.
 */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = "Operate a running cluster: status, members, snapshot, and membership changes (add, promote, remove, "
                + "replace, transfer-leader) through each replica's metrics endpoint.")
final class AdminCommand {
    /** Exit code: the cluster refused or could not do it. */
    static final int REFUSED = 1;
    /** Exit code: usage or configuration error. */
    static final int USAGE = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, description = "Cluster configuration file (its metrics= endpoints and "
            + "cluster.secret are used).")
    Path config;

    @Option(names = "--metrics", paramLabel = "ID=HOST:PORT,...", description = "The replicas' metrics endpoints, "
            + "overriding the file's metrics= (e.g. for replicas started with --metrics-port).")
    String metrics;

    @Option(names = "--replica", paramLabel = "ID", description = "Send to this replica only (default: status, members and "
            + "snapshot go to every replica; a membership change to the first that can take it).")
    Integer replica;

    @Option(names = "--part", paramLabel = "NAME", description = "A membership change for this part only, where the "
            + "membership has parts that change on their own (multi-ring: ring-0, ring-1, ..., ring-g; status lists them as "
            + "membership.parts); default every part in turn.")
    String part;

    @Option(names = "--timeout", defaultValue = "45", paramLabel = "SECONDS",
            description = "How long to wait for one replica's answer (a membership change waits for its decision; default 45).")
    int timeoutSeconds;

    /** The cluster as this command reaches it. */
    private record Target(ClusterFile file, AdminClient client) {
    }

    @Command(name = "status", description = "Per replica: reachable, role, view or round, leader, last decided and "
            + "executed instance, lag and membership.")
    int status() {
        return run(t -> {
            List<AdminStatusReport.Answer> answers = new ArrayList<>();
            boolean all = true;
            for (int id : ids(t)) {
                int partition = t.file().partitionOf(id);
                try {
                    AdminClient.Reply r = t.client().get(id, "/admin/status");
                    if (r.ok()) {
                        answers.add(new AdminStatusReport.Answer(id, partition, AdminStatusReport.parse(r.body()), null));
                        continue;
                    }
                    answers.add(new AdminStatusReport.Answer(id, partition, null, "HTTP " + r.status() + " " + r.body()));
                } catch (IOException e) {
                    answers.add(new AdminStatusReport.Answer(id, partition, null, e.getMessage()));
                }
                all = false;
            }
            AdminStatusReport.lines(answers, t.file().partitions() > 1).forEach(out()::println);
            return all ? 0 : REFUSED;
        });
    }

    @Command(name = "members", description = "The membership line of each reachable replica.")
    int members() {
        return run(t -> {
            boolean all = true;
            for (int id : ids(t)) {
                try {
                    AdminClient.Reply r = t.client().get(id, "/admin/members");
                    out().println("replica " + id + ": " + r.body());
                    all &= r.ok() || r.status() == 501;
                } catch (IOException e) {
                    out().println("replica " + id + ": " + e.getMessage());
                    all = false;
                }
            }
            return all ? 0 : REFUSED;
        });
    }

    @Command(name = "snapshot", description = "Ask each replica (or --replica) to take a snapshot now.")
    int snapshot() {
        return run(t -> {
            boolean all = true;
            for (int id : ids(t)) {
                try {
                    AdminClient.Reply r = t.client().post(id, "/admin/snapshot", "");
                    (r.ok() ? out() : err()).println("replica " + id + ": " + r.body());
                    all &= r.ok();
                } catch (IOException e) {
                    err().println(e.getMessage());
                    all = false;
                }
            }
            return all ? 0 : REFUSED;
        });
    }

    @Command(name = "add", description = "Add a replica as a non-voting learner.")
    int add(@Parameters(paramLabel = "ID=HOST:PORT", description = "The new replica's id and replica address.") String member) {
        return run(t -> {
            Member m = AdminArguments.idAddress(member);
            return change(t, "/admin/add", "id=" + m.id() + "\naddress=" + AdminArguments.hostPort(m.host() + ":" + m.port()));
        });
    }

    @Command(name = "promote", description = "Make a learner a voter (refused until it has caught up).")
    int promote(@Parameters(paramLabel = "ID") String id) {
        return run(t -> change(t, "/admin/promote", "id=" + known(t, id)));
    }

    @Command(name = "remove", description = "Remove a voter or learner.")
    int remove(@Parameters(paramLabel = "ID") String id) {
        return run(t -> change(t, "/admin/remove", "id=" + known(t, id)));
    }

    @Command(name = "replace", description = "Replace voter OLD by NEW at HOST:PORT in one change.")
    int replace(@Parameters(index = "0", paramLabel = "OLD") String old,
                @Parameters(index = "1", paramLabel = "NEW=HOST:PORT") String member) {
        return run(t -> {
            Member m = AdminArguments.idAddress(member);
            int oldId = known(t, old);
            return change(t, "/admin/replace", "old=" + oldId + "\nid=" + m.id() + "\naddress="
                    + AdminArguments.hostPort(m.host() + ":" + m.port()));
        });
    }

    @Command(name = "transfer-leader", description = "Hand leadership to a voter.")
    int transferLeader(@Parameters(paramLabel = "ID") String id) {
        return run(t -> change(t, "/admin/transfer-leader", "id=" + known(t, id)));
    }

    /** What a subcommand does with the cluster; IllegalArgumentException is a usage error. */
    private interface Action {
        int apply(Target t);
    }

    private int run(Action action) {
        Target t;
        try {
            t = target();
            return action.apply(t);
        } catch (IllegalArgumentException e) {
            err().println(e.getMessage());
            return USAGE;
        }
    }

    private Target target() {
        ClusterFile file;
        try {
            file = ClusterFile.load(config);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + config + ": " + e.getMessage(), e);
        }
        ClusterMembers endpoints;
        if (metrics != null) {
            try {
                endpoints = ClusterMembers.parse(metrics);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--metrics: " + e.getMessage(), e);
            }
        } else {
            endpoints = file.metrics().orElseThrow(() -> new IllegalArgumentException("no metrics endpoints: add metrics="
                    + "0=host:port,1=host:port,... to " + config + " (each replica then serves there) or pass --metrics"));
        }
        int n = file.members().size();
        if (endpoints.size() != n) {
            throw new IllegalArgumentException("--metrics lists " + endpoints.size() + " replicas, the cluster file " + n);
        }
        if (replica != null && (replica < 0 || replica >= n)) {
            throw new IllegalArgumentException("--replica " + replica + " is not in the cluster file's members (0.." + (n - 1) + ")");
        }
        ClusterSecret secret = file.replica(0).clusterSecret().orElse(null);
        AdminAuth auth = secret == null ? null : new AdminAuth(secret);
        return new Target(file, new AdminClient(endpoints, auth, System::currentTimeMillis, Duration.ofSeconds(timeoutSeconds)));
    }

    /** The replicas to ask: {@code --replica}, or every one in id order. */
    private List<Integer> ids(Target t) {
        List<Integer> ids = new ArrayList<>();
        for (int id = 0; id < t.file().members().size(); id++) {
            if (replica == null || replica == id) {
                ids.add(id);
            }
        }
        return ids;
    }

    /**
     * {@code text} as the id of a replica the cluster knows: one in the cluster file, or one the
     * membership reported by the first reachable replica names (a learner added at run time).
     */
    private int known(Target t, String text) {
        int id = AdminArguments.id(text);
        int n = t.file().members().size();
        if (id < n) {
            return id;
        }
        Set<Integer> membership = new TreeSet<>();
        for (int r : ids(t)) {
            try {
                AdminClient.Reply reply = t.client().get(r, "/admin/members");
                if (reply.ok()) {
                    membership = AdminArguments.ids(reply.body());
                    break;
                }
            } catch (IOException e) {
                // the next one
            }
        }
        if (membership.contains(id)) {
            return id;
        }
        throw new IllegalArgumentException("replica " + id + " is unknown: not in the cluster file's members (0.." + (n - 1)
                + ")" + (membership.isEmpty() ? "" : " nor in the membership " + membership));
    }

    /**
     * Sends a membership change to {@code --replica}, or to each replica in turn until one answers
     * other than "not the leader" (421) or unreachable; prints its answer.
     */
    private int change(Target t, String path, String body) {
        List<String> parts = part != null ? List.of(part) : parts(t);
        if (parts.isEmpty()) {
            return changeOnce(t, path, body, null, new ArrayList<>());
        }
        List<String> took = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        for (String part : parts) {
            int code = changeOnce(t, path, body + "\n" + AdminRoutes.PART + "=" + part, part, answers);
            if (code != 0) {
                err().println(took.isEmpty() ? "no part took the request" : "the parts " + took + " took it, " + part
                        + " did not: once the cause is fixed, repeat the request for each remaining part with --part NAME");
                return code;
            }
            took.add(part);
        }
        if (answers.stream().allMatch(a -> a.startsWith(dev.parallax.core.multicast.StreamMembership.UNCHANGED))) {
            err().println("no part " + parts + " concerns the replicas named: none of them can have them as members");
            return REFUSED;
        }
        return 0;
    }

    /**
     * The parts of the membership ({@code membership.parts} in the replicas' status: Multi-Ring's
     * rings, each with its own leader; under S-SMR each replica lists its partition's ring and the
     * global ring), empty for a membership of one order.
     */
    private List<String> parts(Target t) {
        java.util.Set<String> parts = new java.util.LinkedHashSet<>();
        for (int id : ids(t)) {
            try {
                AdminClient.Reply r = t.client().get(id, "/admin/status");
                String of = r.ok() ? AdminStatusReport.parse(r.body()).get(ReplicaAdminTarget.MEMBERSHIP_PARTS) : null;
                if (of != null && !of.isBlank()) {
                    parts.addAll(List.of(of.split(",")));
                }
            } catch (IOException unreachable) {
                // the next one
            }
        }
        return parts.stream().sorted(java.util.Comparator.comparing(AdminCommand::partOrder)).toList();
    }

    /** Parts in ring order, the global ring last: {@code ring-0, ring-1, ..., ring-g}. */
    static String partOrder(String part) {
        String n = part.substring(part.lastIndexOf('-') + 1);
        return n.chars().allMatch(Character::isDigit) ? String.format("%09d", Integer.parseInt(n)) : "~" + n;
    }

    private int changeOnce(Target t, String path, String body, String part, List<String> answers) {
        List<String> passed = new ArrayList<>();
        String prefix = part == null ? "" : part + ": ";
        for (int id : ids(t)) {
            AdminClient.Reply r;
            try {
                r = t.client().post(id, path, body);
            } catch (IOException e) {
                passed.add(e.getMessage());
                continue;
            }
            if (r.status() == 421 && replica == null) {
                passed.add(prefix + "replica " + id + ": " + r.body());
                continue;
            }
            if (r.ok()) {
                out().println(prefix + r.body());
                answers.add(r.body());
                return 0;
            }
            err().println(prefix + "replica " + id + ": " + r.body());
            return r.status() == 400 ? USAGE : REFUSED;
        }
        passed.forEach(err()::println);
        err().println(prefix + "no replica took the request");
        return REFUSED;
    }

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    private PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
