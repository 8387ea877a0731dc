package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.check.History;
import dev.parallax.core.session.ClientSessions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * One deterministic, seeded run of S-SMR: P partitions × 3 replicas, each an {@link SsmrDriver}
 * over a {@link Registers} machine, in virtual time.
 *
 * <p><b>Ordering</b> is a simulated Multi-Ring atomic multicast (seed 003 ch. 5): a ring per
 * partition carries single-partition commands, a global ring carries multi-partition ones (and
 * delivers them to every partition; uninvolved ones skip them). Each ring decides an instance (a
 * batch, maybe empty) every {@code period} ms of its own (1-8 ms) and every 10 ms fills up with
 * skip instances to one instance per ms (Multi-Ring's rate λ); every replica of partition p merges
 * deterministically: ring p instance 0, global instance 0, ring p instance 1, ... — acyclic by
 * construction, and NOT real-time ordered across rings (a slow ring delays its partition), which
 * is what Fig. 1 (a) needs. Replicas learn decisions with random delays, in order.
 *
 * <p><b>Partition links</b> delay (0.1-4 ms), reorder, drop and duplicate messages. <b>Network
 * partitions</b> (0-2 per seed, 5-45 ms each) cut one or two replicas, or a whole partition's
 * replicas, off from the others, both ways or one way: a cut replica's messages out (or in) are
 * lost, and a replica cut off inbound learns no decision until the cut heals (it is cut off from
 * its rings too). <b>Crashes</b>:
 * a replica loses its state and core; on restart it replays the whole delivered prefix from a
 * fresh machine — or from its last snapshot (taken at quiescence, after which the log was
 * truncated) — with its (durable) {@link RemoteValuesLog}. <b>Clients</b> run closed loops of
 * random operations and take the first reply of any replica; their history goes to the
 * linearizability checker. Not thread-safe.
 */
final class SsmrSimulation {
    static final long MS = 1_000_000L;
    static final int REPLICAS = 3;
    private static final long SKIP_INTERVAL = 10 * MS;

    private record Event(long time, long seq, Runnable action) {
    }

    private final SplittableRandom rnd;
    final int partitions;
    private final boolean signals;
    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private long seq;
    private long now;
    private final int rings;
    private final long[] period;
    private final List<List<List<Command>>> decided = new ArrayList<>();
    private final List<List<Command>> proposed = new ArrayList<>();
    private final int[] lastNonEmpty;
    final Replica[][] replicas;
    private final double drop;
    private final double dup;
    private final List<Client> clients = new ArrayList<>();
    private final Map<CommandId, Client> waiting = new HashMap<>();
    private final History.Builder<RegistersModel.Op, List<Long>> history = History.builder();
    private long nextValue = 1;
    private int clientsDone;
    long eventsRun;
    int crashesDone;
    int cutsDone;
    private final NetworkCuts cuts = new NetworkCuts();
    private int replays;
    int restoredFromSnapshot;
    /** Per pool; small with session floods (about the clients' working set), else the replica's default. */
    private final int maxSessions;
    /** Bursts of commands from new client ids (read-only, outside the history); 0 without floods. */
    private final int floods;
    private long freshIds = 1_000_000;
    /** Commands of the clients refused as EXPIRED: of one partition, of several. */
    final int[] expired = new int[2];
    /** The verdict on each command to several partitions: the same at every replica of every partition. */
    private final Map<CommandId, ClientSessions.Verdict> multiVerdicts = new HashMap<>();

    int operations;
    /** The caching settings every replica runs with ({@code ssmr.cache}); off unless a test sets them before {@link #run}. */
    SsmrCacheConfig cache = SsmrCacheConfig.OFF;
    /**
     * Replicas restarting from a snapshot drop its caching state, and idle replicas now and then drop
     * what they hold of other partitions (a test of CachedExchange's rule 5).
     */
    boolean forgetCaches;

    final class Replica {
        final int partition;
        final int index;
        final CheckingRemoteValuesLog log = new CheckingRemoteValuesLog();
        /** The last snapshot (taken at quiescence on an instance boundary), or null; the sessions' with it. */
        byte[] snapshot;
        byte[] sessionSnapshot;
        ClientSessions sessions;
        int snapshotInstance;
        boolean snapshotGlobalTurn;
        int incarnation;
        boolean alive;
        Registers machine;
        SsmrStateMachine adapter;
        SsmrDriver driver;
        final int[] learned;
        final long[] lastLearn;
        int nextInstance;
        boolean globalTurn;

        Replica(int partition, int index) {
            this.partition = partition;
            this.index = index;
            this.learned = new int[rings];
            this.lastLearn = new long[rings];
        }

        void start() {
            alive = true;
            incarnation++;
            machine = new Registers(partitions);
            adapter = new SsmrStateMachine(machine);
            SsmrConfig config = SsmrConfig.of(partition, partitions).withSignals(signals)
                    .withResend(1024, 4096, 20 * MS).withCache(cache);
            driver = new SsmrDriver(config, adapter, log, this::send, new SsmrDriver.Outcomes() {
                @Override
                public void replied(Command command, CommandResult result) {
                    sessions.store(command.id(), result);
                    reply(command, result);
                }

                @Override
                public void skipped(Command command) {
                }
            });
            nextInstance = 0;
            globalTurn = false;
            sessions = new ClientSessions(4, maxSessions);
            if (snapshot != null) {
                try {
                    adapter.restore(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(snapshot)));
                    if (forgetCaches) {
                        adapter.cache().clear(); // as from a snapshot without caching state: misses, full requests
                    }
                    sessions.readFrom(new java.io.DataInputStream(new java.io.ByteArrayInputStream(sessionSnapshot)));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                nextInstance = snapshotInstance;
                globalTurn = snapshotGlobalTurn;
                restoredFromSnapshot++;
            }
            for (int r = 0; r < rings; r++) {
                learned[r] = decided.get(r).size();
            }
            int inc = incarnation;
            at(now + rnd.nextLong(5 * MS), () -> tick(inc));
            deliverReady();
        }

        void crash() {
            crashesDone++;
            alive = false;
            incarnation++;
            driver = null;
            machine = null;
        }

        private void tick(int inc) {
            if (!alive || inc != incarnation || ended()) {
                return;
            }
            driver.tick(now);
            at(now + 5 * MS, () -> tick(inc));
        }

        private void send(int q, PartitionMessage m) {
            for (Replica to : replicas[q]) {
                int copies = rnd.nextDouble() < drop ? 0 : rnd.nextDouble() < dup ? 2 : 1;
                if (cuts.between(id(this), id(to), now)) {
                    copies = 0;
                }
                for (int i = 0; i < copies; i++) {
                    at(now + MS / 10 + rnd.nextLong(4 * MS), () -> {
                        if (to.alive) {
                            to.driver.receive(m);
                        }
                    });
                }
            }
        }

        void learn(int ring, int instance, int inc) {
            if (!alive || inc != incarnation) {
                return;
            }
            learned[ring] = Math.max(learned[ring], instance + 1);
            deliverReady();
        }

        void deliverReady() {
            while (alive) {
                int ring = globalTurn ? rings - 1 : partition;
                if (learned[ring] <= nextInstance) {
                    return;
                }
                for (Command c : decided.get(ring).get(nextInstance)) {
                    if (c.groups().contains(partition) && log.lookup(c.id()).isPresent()) {
                        replays++;
                    }
                    admit(c);
                    if (!alive) {
                        return;
                    }
                }
                if (globalTurn) {
                    nextInstance++;
                }
                globalTurn = !globalTurn;
                if (driver.core().idle() && rnd.nextInt(8) == 0) {
                    takeSnapshot();
                }
                if (forgetCaches && driver.core().idle() && rnd.nextInt(4) == 0) {
                    adapter.cache().held.clear();
                }
            }
        }

        /**
         * What the replica's ServiceManager does with every delivered command: the session table's
         * verdict first (SsmrCore's rule 12), then the executor for EXECUTE, an answer for EXPIRED.
         */
        private void admit(Command c) {
            ClientSessions.Verdict v = sessions.admit(c.id());
            if (c.groups().size() > 1) {
                ClientSessions.Verdict first = multiVerdicts.putIfAbsent(c.id(), v);
                if (first != null && first != v) {
                    throw new AssertionError("partitions disagree on " + c.id() + ": " + first + ", then " + v
                            + " at replica " + partition + "." + index);
                }
            }
            switch (v) {
                case EXECUTE -> driver.deliver(c);
                case EXPIRED -> {
                    Client client = c.groups().contains(partition) ? waiting.remove(c.id()) : null;
                    if (client != null) {
                        expired[c.groups().size() > 1 ? 1 : 0]++;
                        at(now + rnd.nextLong(MS), client::expired);
                    }
                }
                default -> throw new AssertionError(v + " for " + c.id() + ": clients neither retry nor skip");
            }
        }

        /**
         * A snapshot at quiescence (what the replica does after awaitQuiescence), then the log is
         * truncated through its finish index, as the RemoteValuesLog contract says.
         */
        private void takeSnapshot() {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            try {
                adapter.snapshot(java.nio.channels.Channels.newChannel(bytes));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            snapshot = bytes.toByteArray();
            java.io.ByteArrayOutputStream table = new java.io.ByteArrayOutputStream();
            try {
                sessions.writeTo(new java.io.DataOutputStream(table));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            sessionSnapshot = table.toByteArray();
            snapshotInstance = nextInstance;
            snapshotGlobalTurn = globalTurn;
            log.truncateThrough(adapter.finishIndex());
        }

        boolean caughtUp() {
            if (!alive || !driver.core().idle()) {
                return false;
            }
            // past the last non-empty instance of its ring and of the global ring
            int mine = lastNonEmpty[partition];
            int global = lastNonEmpty[rings - 1];
            return nextInstance > Math.max(mine, global);
        }
    }

    private final class Client {
        final int id;
        final int ops;
        int done;
        /** The client id of its commands: a new one after its session expired. */
        long session;
        /** The last sequence number of each stream (destination set) of {@link #session}. */
        final Map<Long, Long> seqNos = new HashMap<>();
        RegistersModel.Op op;
        long invoked;

        Client(int id, int ops) {
            this.id = id;
            this.ops = ops;
            this.session = id;
        }

        void issue() {
            op = randomOp();
            invoked = now;
            byte[] payload = op.encode();
            Command c = Registers.command(session, seqNos.merge(Registers.partsOf(payload).bits(), 1L, Long::sum), payload);
            waiting.put(c.id(), this);
            int ring = c.groups().size() == 1 ? c.groups().first() : rings - 1;
            at(now + rnd.nextLong(MS), () -> proposed.get(ring).add(c));
        }

        /** Its session was evicted: the command never executed anywhere; a new session, a new operation. */
        void expired() {
            session = freshIds++;
            seqNos.clear();
            issue();
        }

        void replied(CommandResult result) {
            List<Long> out = switch (op.type()) {
                case Registers.READ, Registers.READ_ALL, Registers.COPY -> Registers.decodeLongs(result.reply());
                default -> List.of();
            };
            if (result.isError()) {
                throw new AssertionError("client " + id + " got an error for " + op + ": " + result.error());
            }
            history.ok(id, op, out, invoked, now);
            operations++;
            if (++done < ops) {
                at(now + rnd.nextLong(3 * MS), this::issue);
            } else {
                clientsDone++;
            }
        }
    }

    private final boolean multiOnly;

    /** A mixed workload over 2 (3/4 of the seeds) or 3 partitions. */
    SsmrSimulation(long seed, boolean signals) {
        this(seed, signals, false);
    }

    /**
     * @param multiOnly only multi-partition commands (multiWrite, readAll, copy to random subsets),
     *                  over 3 partitions: the deadlock hunt
     */
    SsmrSimulation(long seed, boolean signals, boolean multiOnly) {
        this(seed, signals, multiOnly, false);
    }

    /**
     * @param sessionFloods session tables of about the clients' working set per pool, and bursts of
     *                      commands from new client ids on random rings that evict the clients'
     *                      sessions (ClientSessions' pools, SsmrCore's rule 12)
     */
    SsmrSimulation(long seed, boolean signals, boolean multiOnly, boolean sessionFloods) {
        this.rnd = new SplittableRandom(seed);
        this.signals = signals;
        this.multiOnly = multiOnly;
        this.partitions = multiOnly || rnd.nextInt(4) == 0 ? 3 : 2;
        this.rings = partitions + 1;
        this.period = new long[rings];
        this.lastNonEmpty = new int[rings];
        long[] choices = {MS, 2 * MS, 3 * MS, 5 * MS, 8 * MS};
        for (int r = 0; r < rings; r++) {
            period[r] = choices[rnd.nextInt(choices.length)];
            decided.add(new ArrayList<>());
            proposed.add(new ArrayList<>());
            lastNonEmpty[r] = -1;
        }
        double[] drops = {0, 0.05, 0.2};
        this.drop = drops[rnd.nextInt(drops.length)];
        this.dup = rnd.nextDouble() < 0.5 ? 0 : 0.1;
        this.replicas = new Replica[partitions][REPLICAS];
        for (int p = 0; p < partitions; p++) {
            for (int i = 0; i < REPLICAS; i++) {
                replicas[p][i] = new Replica(p, i);
            }
        }
        int nClients = 2 + rnd.nextInt(2);
        for (int c = 0; c < nClients; c++) {
            clients.add(new Client(c + 1, 3 + rnd.nextInt(5)));
        }
        this.maxSessions = sessionFloods ? 4 * nClients : 100_000;
        this.floods = sessionFloods ? 2 + rnd.nextInt(4) : 0;
    }

    private void at(long time, Runnable action) {
        events.add(new Event(time, seq++, action));
    }

    private boolean finished() {
        return clientsDone == clients.size();
    }

    private RegistersModel.Op randomOp() {
        int kind = multiOnly ? 5 + rnd.nextInt(5) : rnd.nextInt(10);
        int v = rnd.nextInt(partitions);
        if (kind < 3) {
            return new RegistersModel.Op(Registers.READ, new int[]{v}, new long[0]);
        }
        if (kind < 5) {
            return new RegistersModel.Op(Registers.WRITE, new int[]{v}, new long[]{nextValue++});
        }
        int[] vars = randomSubset();
        if (kind < 7) {
            long[] vals = new long[vars.length];
            for (int i = 0; i < vals.length; i++) {
                vals[i] = nextValue++;
            }
            return new RegistersModel.Op(Registers.MULTI_WRITE, vars, vals);
        }
        if (kind < 9) {
            return new RegistersModel.Op(Registers.READ_ALL, vars, new long[0]);
        }
        int dst = (v + 1 + rnd.nextInt(partitions - 1)) % partitions;
        return new RegistersModel.Op(Registers.COPY, new int[]{v, dst}, new long[0]);
    }

    private int[] randomSubset() {
        while (true) {
            List<Integer> vs = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                if (rnd.nextBoolean()) {
                    vs.add(p);
                }
            }
            if (vs.size() >= 2) {
                return vs.stream().mapToInt(Integer::intValue).toArray();
            }
        }
    }

    /**
     * More new client ids at once on one ring than a session pool holds: reads (a single-partition
     * READ on a partition's ring, a READ_ALL on the global ring) that nobody waits for and that
     * change nothing, so they stay out of the history.
     */
    private void floodBurst() {
        int ring = rnd.nextInt(rings);
        int count = maxSessions + 1 + rnd.nextInt(maxSessions);
        for (int i = 0; i < count; i++) {
            byte[] payload = ring < partitions ? Registers.read(ring) : Registers.readAll(randomSubset());
            proposed.get(ring).add(Registers.command(freshIds++, 1, payload));
        }
    }

    private void decide(int ring) {
        List<Command> batch = List.copyOf(proposed.get(ring));
        proposed.get(ring).clear();
        decideBatch(ring, batch);
        if (!ended()) {
            at(now + period[ring], () -> decide(ring));
        }
    }

    /**
     * Multi-Ring's skip instances: every {@code SKIP_INTERVAL} each ring that decided fewer
     * instances than one per ms since the start fills the gap with empty ones, so that the merge
     * never waits long for a slow ring (and a slow ring lags the others by up to an interval).
     */
    private void skips() {
        for (int r = 0; r < rings; r++) {
            while (decided.get(r).size() < now / MS) {
                decideBatch(r, List.of());
            }
        }
        if (!ended()) {
            at(now + SKIP_INTERVAL, this::skips);
        }
    }

    private void decideBatch(int ring, List<Command> batch) {
        int instance = decided.get(ring).size();
        decided.get(ring).add(batch);
        if (!batch.isEmpty()) {
            lastNonEmpty[ring] = instance;
        }
        for (Replica[] part : replicas) {
            for (Replica r : part) {
                if (!r.alive) {
                    continue;
                }
                long t = cuts.healedInbound(id(r), Math.max(now + rnd.nextLong(3 * MS), r.lastLearn[ring]));
                r.lastLearn[ring] = t;
                int inc = r.incarnation;
                at(t, () -> r.learn(ring, instance, inc));
            }
        }
    }

    private static int id(Replica r) {
        return r.partition * REPLICAS + r.index;
    }

    private void reply(Command command, CommandResult result) {
        Client c = waiting.remove(command.id());
        if (c != null) {
            at(now + rnd.nextLong(MS), () -> c.replied(result));
        }
    }

    private boolean ended() {
        if (!finished()) {
            return false;
        }
        for (Replica[] part : replicas) {
            for (Replica r : part) {
                if (!r.caughtUp()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** How many commands were delivered again after a restart and replayed from the log. */
    int replays() {
        return replays;
    }

    /** The sum of every live replica's counters: early, late, duplicates, requests sent, answered, pushed ahead. */
    long[] counterTotals() {
        long[] t = new long[6];
        for (Replica[] part : replicas) {
            for (Replica r : part) {
                SsmrCounters c = r.driver.core().counters();
                t[0] += c.earlyBuffered();
                t[1] += c.late();
                t[2] += c.duplicates();
                t[3] += c.requestsSent();
                t[4] += c.requestsAnswered();
                t[5] += c.pushedAhead();
            }
        }
        return t;
    }

    private String stuck() {
        StringBuilder b = new StringBuilder();
        for (Replica[] part : replicas) {
            for (Replica r : part) {
                if (!r.caughtUp()) {
                    b.append(" replica ").append(r.partition).append('.').append(r.index)
                            .append(" next ").append(r.nextInstance).append(r.globalTurn ? "g" : "p")
                            .append(" learned ").append(java.util.Arrays.toString(r.learned))
                            .append(r.alive ? " head " + r.driver.core().head() + " queued " + r.driver.core().queued()
                                    + " " + r.driver.core().counters() : " down");
                }
            }
        }
        b.append(" decided");
        for (int r = 0; r < rings; r++) {
            b.append(' ').append(decided.get(r).size()).append('/').append(lastNonEmpty[r]);
        }
        return b.toString();
    }

    /**
     * Runs to the end: every client finished, every replica alive, caught up and idle.
     *
     * @throws AssertionError if the event budget runs out first (a deadlock or livelock)
     */
    History<RegistersModel.Op, List<Long>> run(long eventBudget) {
        for (Replica[] part : replicas) {
            for (Replica r : part) {
                r.start();
            }
        }
        for (int r = 0; r < rings; r++) {
            int ring = r;
            at(rnd.nextLong(period[r]), () -> decide(ring));
        }
        at(SKIP_INTERVAL, this::skips);
        for (Client c : clients) {
            at(rnd.nextLong(2 * MS), c::issue);
        }
        cuts.plan(rnd, partitions, REPLICAS);
        cutsDone = cuts.count();
        for (int i = 0; i < floods; i++) {
            at(rnd.nextLong(60 * MS), this::floodBurst);
        }
        int crashes = rnd.nextInt(3);
        for (int i = 0; i < crashes; i++) {
            Replica victim = replicas[rnd.nextInt(partitions)][rnd.nextInt(REPLICAS)];
            long when = rnd.nextLong(60 * MS);
            long down = 5 * MS + rnd.nextLong(40 * MS);
            at(when, () -> {
                if (victim.alive) {
                    victim.crash();
                    at(now + down, victim::start);
                }
            });
        }
        while (!events.isEmpty()) {
            if (++eventsRun > eventBudget) {
                throw new AssertionError("no progress within " + eventBudget + " events (virtual time "
                        + now / MS + " ms, " + clientsDone + "/" + clients.size() + " clients done, waiting for "
                        + waiting.keySet() + ", " + stuck() + "): deadlock or livelock");
            }
            Event e = events.poll();
            now = e.time;
            e.action.run();
            if (finished() && ended()) {
                break;
            }
        }
        if (!ended()) {
            throw new AssertionError("events ran out before the end");
        }
        return history.build();
    }
}
