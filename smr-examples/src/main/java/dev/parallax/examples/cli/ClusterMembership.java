package dev.parallax.examples.cli;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.Member;
import dev.parallax.core.net.LocalPorts;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The membership of a {@link ProcessCluster} whose ordering changes its members (Multi-Paxos,
 * S-Paxos, U-Ring, M-Ring, Multi-Ring), changed the way
 * docs/operations.md tells an operator to ("Replacing a replica", "Admin command"): a voter is
 * replaced by a fresh replica under a new id (started with {@code --join} and an empty data
 * directory, added as a learner, then {@code replace}d in one change; the old one stopped with
 * SIGTERM and its data directory deleted), and leadership is handed to a chosen voter. Requests go
 * to the leader's admin routes ({@link MembershipRequests}); where the membership has parts that
 * change on their own (Multi-Ring's rings), each change goes to every part at once, asked of each
 * live voter until the part's leader takes it. Tracks the voters, the replicas to
 * kill, restart and check, and gives clients every endpoint a replica may ever have: the file's,
 * and one per joining id, picked up front ({@code slots} of them, ids from the file's size up).
 *
 * <p>The old voter is stopped only once every live voter has the change in effect and has
 * executed what the leader had decided by then (an S-Paxos body the new voter has not fetched yet
 * may otherwise be left on the old voter and one other; docs/protocols/s-paxos.md, "Membership
 * changes").
 *
 * <p>Owned by one thread (the chaos or demo control loop); every method blocks for its processes
 * and HTTP requests.
 */
final class ClusterMembership implements NetworkFaults.Replicas {
    /** How long one replacement (start, catch-up, change, stop) may take. */
    static final Duration REPLACE_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /**
     * What a replacement did, as {@link System#nanoTime()} values.
     *
     * @param oldId     the voter replaced
     * @param newId     the replica that took its place
     * @param startedAt when the new replica's process was launched
     * @param readyAt   when it printed READY
     * @param addedAt   when its addition as a learner was decided
     * @param decidedAt when the replacement was decided
     * @param stoppedAt when the old replica had stopped and its data directory was deleted
     */
    record Replacement(int oldId, int newId, long startedAt, long readyAt, long addedAt, long decidedAt, long inEffectAt,
                       long executedAt, long stoppedAt) {
        /** From the launch of the new replica to the decision that made it a voter: its catch-up. */
        Duration catchUp() {
            return Duration.ofNanos(decidedAt - startedAt);
        }
    }

    /**
     * What a leadership transfer did.
     *
     * @param from    the leader asked
     * @param to      the voter leadership went to
     * @param askedAt when it was asked ({@link System#nanoTime()})
     * @param doneAt  when the answer came (the target leads)
     * @param answer  the leader's answer
     */
    record Transfer(int from, int to, long askedAt, long doneAt, String answer) {
    }

    private final ProcessCluster cluster;
    private final Path dataDir;
    private final MembershipRequests requests;
    private final List<String> slotAddresses = new ArrayList<>();
    private final ClusterMembers clientEndpoints;
    private final Set<Integer> voters = new TreeSet<>();
    private int nextSlot;

    /**
     * @param dataDir the cluster file's {@code data.dir} (a stopped voter's {@code replica-<id>} is deleted there)
     * @param slots   replacements this cluster may see: joining ids and addresses picked now
     */
    ClusterMembership(ProcessCluster cluster, Path dataDir, int slots) throws IOException {
        this.cluster = cluster;
        this.dataDir = dataDir;
        this.requests = new MembershipRequests(cluster);
        int n = cluster.size();
        if (slots < 0 || n + slots > Member.MAX_ID + 1) {
            throw new IllegalArgumentException(slots + " joining replicas do not fit ids " + n + ".." + Member.MAX_ID);
        }
        StringBuilder endpoints = new StringBuilder();
        for (Member m : cluster.clientEndpoints().members()) {
            endpoints.append(endpoints.length() == 0 ? "" : ",").append(m.id()).append('=').append(m.host()).append(':').append(m.port());
            voters.add(m.id());
        }
        for (int s = 0; s < slots; s++) {
            int port = joinPort();
            String host = cluster.host(n + s); // 127.0.0.1, or its test-bed host's address
            slotAddresses.add(host + ":" + port);
            // A joining replica serves clients on its port + 1000 (docs/operations.md, "Starting a joining replica").
            endpoints.append(',').append(n + s).append('=').append(host).append(':').append(port + 1000);
        }
        this.clientEndpoints = ClusterMembers.parse(endpoints.toString());
    }

    /** A loopback port whose port + 1000 (the joiner's client port) is free too. */
    private static int joinPort() throws IOException {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int p = LocalPorts.next();
            if (p + 1000 <= 65535) {
                try (ServerSocket s = new ServerSocket(p + 1000, 1, java.net.InetAddress.getLoopbackAddress())) {
                    return p;
                } catch (IOException taken) {
                    // the next one
                }
            }
        }
        throw new IOException("no free port pair (p, p + 1000) for a joining replica");
    }

    /** A client builder over every endpoint a replica may have (the TLS trust of the cluster's file). */
    ClientConfig.Builder clientConfig() {
        ClientConfig.Builder b = ClientConfig.builder(clientEndpoints);
        cluster.clusterFile().clientTrust().ifPresent(b::tlsTrust);
        return b;
    }

    /** The voters, ascending. */
    int[] voters() {
        return voters.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Whether a joining id is left for {@link #replace}. */
    boolean canReplace() {
        return nextSlot < slotAddresses.size();
    }

    /** The voters {@link #replace} may replace, ascending: every voter. */
    int[] replaceable() {
        return voters();
    }

    /** The voters: what the faults act on. */
    @Override
    public int[] ids() {
        return voters();
    }

    @Override
    public ProcessCluster cluster() {
        return cluster;
    }

    /** Starts replica {@code id} again (a joined one with {@code --join} at its address) and waits for READY. */
    @Override
    public void restart(int id) throws IOException, InterruptedException {
        if (id < cluster.size()) {
            cluster.start(id, START_TIMEOUT);
        } else {
            cluster.startJoiner(id, slotAddresses.get(id - cluster.size()), START_TIMEOUT);
        }
    }

    /**
     * The live voter whose metrics say it leads or coordinates (the highest view or round among
     * claimants, {@link ProcessCluster#leaderAmong}), or -1.
     */
    int leader() {
        return cluster.leaderAmong(voters());
    }

    /** Polls {@link #leader} until one claims it or {@code timeout} passes; -1 then. */
    int awaitLeader(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int leader;
        while ((leader = leader()) < 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
        return leader;
    }

    /**
     * Replaces voter {@code oldId} by the next joining id: starts it ({@code --join}, empty data
     * directory, {@code --bootstrap}), adds it as a learner, replaces {@code oldId} by it (retried
     * while the leader says it has not caught up), waits until the live voters have the change in
     * effect, then stops {@code oldId} (SIGTERM, SIGKILL after 10 s) and deletes its data directory.
     *
     * @throws IOException if a step does not complete within {@link #REPLACE_TIMEOUT} (the tracked
     *                     voters are then re-read from the leader), or a process cannot start
     */
    Replacement replace(int oldId) throws IOException, InterruptedException {
        if (!canReplace() || java.util.Arrays.stream(replaceable()).noneMatch(id -> id == oldId)) {
            throw new IllegalStateException("cannot replace " + oldId + ": voters " + voters + ", joining ids left "
                    + (slotAddresses.size() - nextSlot));
        }
        int newId = cluster.size() + nextSlot;
        String address = slotAddresses.get(nextSlot++);
        long deadline = System.nanoTime() + REPLACE_TIMEOUT.toNanos();
        long startedAt = System.nanoTime();
        cluster.startJoiner(newId, address, START_TIMEOUT);
        long readyAt = System.nanoTime();
        Set<Integer> after = new TreeSet<>(voters);
        after.remove(oldId);
        after.add(newId);
        try {
            change("/admin/add", "id=" + newId + "\naddress=" + address,
                    m -> m.learners().contains(newId) || m.voters().contains(newId), deadline);
            long addedAt = System.nanoTime();
            change("/admin/replace", "old=" + oldId + "\nid=" + newId + "\naddress=" + address,
                    m -> m.voters().equals(after), deadline);
            long decidedAt = System.nanoTime();
            voters.clear();
            voters.addAll(after);
            awaitInEffect(deadline);
            long inEffectAt = System.nanoTime();
            awaitExecuted(deadline);
            long executedAt = System.nanoTime();
            stop(oldId);
            DemoCommand.deleteRecursively(dataDir.resolve("replica-" + oldId));
            return new Replacement(oldId, newId, startedAt, readyAt, addedAt, decidedAt, inEffectAt, executedAt, System.nanoTime());
        } catch (IOException e) {
            resync();
            throw e;
        }
    }

    /**
     * Hands leadership to voter {@code to} ({@code transfer-leader}), asked of the leader; waits
     * for the answer (the target leads), retrying while the leader changes; at once if {@code to}
     * leads already. Where the membership has parts (Multi-Ring's rings), every part's leadership
     * at once ({@link #transferParts}); {@link Transfer#from} is then the first part's leader.
     *
     * @throws IOException if no leader took it within {@link #REPLACE_TIMEOUT}
     */
    Transfer transfer(int to) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + REPLACE_TIMEOUT.toNanos();
        List<String> parts = parts(deadline);
        if (!parts.isEmpty()) {
            return transferParts(parts, to, deadline);
        }
        String last = "no leader";
        while (System.nanoTime() - deadline < 0) {
            int leader = leader();
            if (leader == to) {
                long now = System.nanoTime();
                return new Transfer(to, to, now, now, "replica " + to + " leads already");
            }
            if (leader >= 0) {
                long askedAt = System.nanoTime();
                AdminClient.Reply r = requests.post(leader, "/admin/transfer-leader", "id=" + to);
                if (r.ok()) {
                    return new Transfer(leader, to, askedAt, System.nanoTime(), r.body());
                }
                last = "replica " + leader + ": " + r.status() + " " + r.body();
            }
            Thread.sleep(200);
        }
        throw new IOException("leadership did not pass to replica " + to + " within " + REPLACE_TIMEOUT.toSeconds() + " s: " + last);
    }

    /**
     * Every part's leadership to {@code to}, all parts at once ({@link #eachPart}: a part's hand-over
     * holds its stream back, and the merge of the streams waits for the slowest).
     */
    private Transfer transferParts(List<String> parts, int to, long deadline) throws IOException, InterruptedException {
        long askedAt = System.nanoTime();
        int[] from = new int[parts.size()];
        List<String> answers = eachPart(parts, (k, part) -> {
            String[] answer = new String[1];
            from[k] = transferPart(part, to, deadline, answer);
            return part + ": " + answer[0];
        });
        return new Transfer(from[0], to, askedAt, System.nanoTime(), String.join("; ", answers));
    }

    /** One part's step of a change, {@code k} its index in the list of parts; returns its answer. */
    @FunctionalInterface
    private interface PartStep {
        String run(int k, String part) throws IOException, InterruptedException;
    }

    /**
     * Runs {@code step} for every part at once, one thread each (the parts are independent orders,
     * each deciding its own member set), and returns their answers in the parts' order.
     *
     * @throws IOException the first failed part's failure, once every part is done
     */
    private static List<String> eachPart(List<String> parts, PartStep step) throws IOException, InterruptedException {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(parts.size());
        try {
            List<java.util.concurrent.Future<String>> each = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                int k = i;
                each.add(pool.submit(() -> step.run(k, parts.get(k))));
            }
            List<String> answers = new ArrayList<>();
            IOException failed = null;
            for (java.util.concurrent.Future<String> f : each) {
                try {
                    answers.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    if (failed == null) {
                        failed = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                    }
                }
            }
            if (failed != null) {
                throw failed;
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Hands part {@code part}'s leadership to {@code to}: asked of each live voter in turn (with
     * {@code part=NAME}) until the part's leader takes it, or {@code to}, leading already, says so.
     *
     * @param answer where the accepted answer goes ({@code answer[0]})
     * @return the replica that took the request
     */
    private int transferPart(String part, int to, long deadline, String[] answer) throws IOException, InterruptedException {
        String last = "no voter answered";
        while (System.nanoTime() - deadline < 0) {
            for (int id : voters()) {
                if (!cluster.isAlive(id)) {
                    continue;
                }
                AdminClient.Reply r = requests.post(id, "/admin/transfer-leader", "id=" + to + "\n" + AdminRoutes.PART + "=" + part);
                if (r.ok()) {
                    answer[0] = r.body().strip();
                    return id;
                }
                last = "replica " + id + ": " + r.status() + " " + r.body();
            }
            Thread.sleep(200);
        }
        throw new IOException("leadership of " + part + " did not pass to replica " + to + " within "
                + REPLACE_TIMEOUT.toSeconds() + " s: " + last);
    }

    /**
     * Asks the leader for a membership change until {@code goal} holds for the membership it
     * reports (so a request whose answer was lost is not repeated once in effect) or
     * {@code deadline} passes.
     */
    private void change(String path, String body, Predicate<MembershipRequests.Members> goal, long deadline)
            throws IOException, InterruptedException {
        List<String> parts = parts(deadline);
        if (!parts.isEmpty()) {
            eachPart(parts, (k, part) -> {
                changePart(part, path, body, goal, deadline);
                return part;
            });
            return;
        }
        String last = "no leader";
        while (System.nanoTime() - deadline < 0) {
            int leader = leader();
            if (leader >= 0) {
                MembershipRequests.Members now = requests.members(leader);
                if (now != null && goal.test(now)) {
                    return;
                }
                AdminClient.Reply r = requests.post(leader, path, body);
                if (r.ok()) {
                    return;
                }
                last = "replica " + leader + ": " + r.status() + " " + r.body();
            }
            Thread.sleep(200);
        }
        throw new IOException(path + " (" + body.replace('\n', ' ') + ") not done within " + REPLACE_TIMEOUT.toSeconds()
                + " s: " + last);
    }

    /** The membership's parts as the live voters report them (Multi-Ring's rings), empty for one order. */
    private List<String> parts(long deadline) throws InterruptedException {
        while (System.nanoTime() - deadline < 0) {
            java.util.Set<String> parts = new java.util.LinkedHashSet<>();
            boolean answered = false;
            for (int id : voters) {
                if (cluster.isAlive(id) && requests.members(id) != null) {
                    answered = true;
                    parts.addAll(requests.parts(id));
                }
            }
            if (answered) {
                return parts.stream().sorted(java.util.Comparator.comparing(AdminCommand::partOrder)).toList();
            }
            Thread.sleep(200);
        }
        return List.of();
    }

    /**
     * The change in one part ({@code part=NAME}): asked of each live voter in turn until one takes
     * it (the part's leader: a ring's coordinator) or {@code goal} holds for that part's membership.
     */
    private void changePart(String part, String path, String body, Predicate<MembershipRequests.Members> goal, long deadline)
            throws IOException, InterruptedException {
        String last = "no voter answered";
        while (System.nanoTime() - deadline < 0) {
            for (int id : voters()) {
                if (!cluster.isAlive(id)) {
                    continue;
                }
                MembershipRequests.Members now = requests.members(id, part);
                if (now != null && goal.test(now)) {
                    return;
                }
                AdminClient.Reply r = requests.post(id, path, body + "\n" + AdminRoutes.PART + "=" + part);
                if (r.ok()) {
                    return;
                }
                last = "replica " + id + ": " + r.status() + " " + r.body();
            }
            Thread.sleep(200);
        }
        throw new IOException(path + " (" + body.replace('\n', ' ') + ") in " + part + " not done within "
                + REPLACE_TIMEOUT.toSeconds() + " s: " + last);
    }

    /** Waits until every live voter reports the tracked voters in effect. */
    private void awaitInEffect(long deadline) throws IOException, InterruptedException {
        java.util.Map<Integer, String> seen = new java.util.TreeMap<>();
        while (System.nanoTime() - deadline < 0) {
            boolean all = true;
            for (int id : voters) {
                String line = cluster.isAlive(id) ? requests.membersLine(id) : null;
                MembershipRequests.Members m = line == null ? null : MembershipRequests.parse(line);
                seen.put(id, !cluster.isAlive(id) ? "down" : line == null ? "no answer" : line);
                all &= !cluster.isAlive(id) || m != null && m.voters().equals(voters);
            }
            if (all) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IOException("voters " + voters + " not in effect at every live voter within " + REPLACE_TIMEOUT.toSeconds()
                + " s; they report " + seen);
    }

    /**
     * Waits until every live voter has executed every instance the leader had decided when this
     * was called (its admin status: {@code executed} against the stream's {@code decided}).
     */
    private void awaitExecuted(long deadline) throws IOException, InterruptedException {
        long decided;
        if (parts(deadline).isEmpty()) {
            int leader = awaitLeader(START_TIMEOUT);
            decided = leader < 0 ? -1 : requests.streamDecided(leader);
        } else {
            // Several rings, each with its own instances: what the furthest voter executed of the merged sequence.
            decided = -1;
            for (int id : voters) {
                decided = Math.max(decided, cluster.isAlive(id) ? requests.executed(id) : -1);
            }
        }
        while (System.nanoTime() - deadline < 0) {
            boolean all = true;
            for (int id : voters) {
                all &= !cluster.isAlive(id) || requests.executed(id) >= decided;
            }
            if (all) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IOException("voters " + voters + " did not execute through instance " + decided + " within "
                + REPLACE_TIMEOUT.toSeconds() + " s");
    }

    /** The voters as the leader reports them, after a step that failed half way. */
    private void resync() throws InterruptedException {
        int leader = awaitLeader(Duration.ofSeconds(10));
        MembershipRequests.Members m = leader < 0 ? null : requests.members(leader);
        if (m != null) {
            voters.clear();
            voters.addAll(m.voters());
        }
    }

    /** Stops replica {@code id} with SIGTERM (its shutdown path), SIGKILL if it still runs after 10 s. */
    void stop(int id) throws InterruptedException {
        java.util.Optional<ProcessHandle> process = ProcessHandle.of(cluster.pid(id));
        if (process.isPresent()) {
            process.get().destroy();
            try {
                process.get().onExit().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException slow) {
                // SIGKILL below
            }
        }
        cluster.kill(id);
    }
}
