package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.KvOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;

/**
 * {@code parallax chaos --service volery}: Volery (seed 004 (S-SMR) §V-B) under a {@link VoleryLoad}
 * while replicas are killed with SIGKILL and restarted at random ({@link KillRestartFaults}: one down
 * at a time, every partition keeps a majority of its ring and the global ring a majority of all); meanwhile
 * history sessions of ZooKeeper's client read and write a few shared znodes, a register each
 * (setData = write, getData = read: {@link KvModel} with the path as key), recorded for the
 * linearizability checker. Network partitions are not injected for Volery (the key-value chaos run
 * has them). Verdict: the history is linearizable, no acknowledged setData of the load lost, each
 * partition's replicas converged ({@link PartitionConvergence}). Runs on the caller's thread.
 */
final class VoleryChaos {
    /** Shared znodes of the history, {@code /chaos/h0..}. */
    static final int REGISTERS = 6;
    private static final Duration CONVERGENCE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * The run's outcome.
     *
     * @param kills    replicas killed
     * @param restarts replicas restarted
     */
    record Outcome(int kills, int restarts, long acked, long failed, CheckResult check, long lost,
                   PartitionConvergence.Outcome convergence) {
        boolean ok() {
            return check.isLinearizable() && lost == 0 && convergence.converged();
        }
    }

    private final PrintStream out;
    private final long seed;
    private final int historyClients;

    VoleryChaos(PrintStream out, long seed, int historyClients) {
        this.out = out;
        this.seed = seed;
        this.historyClients = historyClients;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The fault phase of a run, on the run's thread while the load and the history clients go on. */
    @FunctionalInterface
    interface FaultPhase {
        /**
         * Injects the faults and returns their counts.
         *
         * @param elapsed seconds since the load started
         */
        KillRestartFaults.Counts run(ProcessCluster cluster, Random rnd, DoubleSupplier elapsed) throws Exception;
    }

    /** Runs faults for {@code run} on a started {@code cluster}, then checks. */
    Outcome run(ProcessCluster cluster, Duration run) throws Exception {
        return run(cluster, run, (c, rnd, elapsed) -> KillRestartFaults.run(out, c, rnd, run, elapsed),
                () -> cluster.clusterFile().partitionMembers());
    }

    /**
     * Runs {@code faults} on a started {@code cluster} under the load and the history clients, then
     * checks; the convergence is awaited over the replicas {@code replicas} lists per partition once
     * the faults are done (after a membership change, the joined replicas in, the replaced out).
     * The load runs for at most {@code run} plus five minutes.
     */
    Outcome run(ProcessCluster cluster, Duration run, FaultPhase faults, java.util.function.Supplier<List<int[]>> replicas)
            throws Exception {
        VoleryLoad.quietClientLogs();
        String connect = VoleryClusterFile.connectString(cluster.clusterFile());
        Random rnd = new Random(seed);
        HistoryRecorder<KvOp, String> history = new HistoryRecorder<>();
        setUpRegisters(connect, history);
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        for (int c = 0; c < historyClients; c++) {
            int id = c;
            Thread t = new Thread(() -> historyClient(id, connect, history, running), "chaos-zk-" + c);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        try (VoleryLoad load = new VoleryLoad(connect, 2, run.plusMinutes(5))) {
            load.setUp();
            load.start();
            KillRestartFaults.Counts counts;
            try {
                counts = faults.run(cluster, rnd, () -> elapsed(load));
            } finally {
                KillRestartFaults.stop(running, workers);
            }
            load.stop(Duration.ofSeconds(60));
            long lost = load.countLost(out);
            PartitionConvergence.Outcome convergence = PartitionConvergence.await(cluster, replicas.get(), CONVERGENCE_TIMEOUT);
            CheckResult check = HistoryClient.check(history);
            return new Outcome(counts.kills(), counts.restarts(), load.completed(), load.failed(), check, lost, convergence);
        }
    }

    /**
     * Creates {@code /chaos} and the registers with value {@code init}, recorded as writes of a
     * client of its own (id {@code historyClients}) before any other operation.
     */
    private void setUpRegisters(String connect, HistoryRecorder<KvOp, String> history)
            throws IOException, InterruptedException, KeeperException {
        ZooKeeper zk = open(connect);
        try {
            zk.create("/chaos", bytes(""), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            for (int i = 0; i < REGISTERS; i++) {
                var inv = history.invoke(historyClients, KvOp.put(register(i), "init"));
                zk.create(register(i), bytes("init"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                history.ok(inv, "OK");
            }
        } finally {
            zk.close();
        }
    }

    private static String register(int i) {
        return "/chaos/h" + i;
    }

    /**
     * One history session: random reads and writes of the registers until {@code running} turns
     * false; an operation whose session lost its connection or expired is recorded with an unknown
     * outcome (and an expired session is replaced).
     */
    private static void historyClient(int id, String connect, HistoryRecorder<KvOp, String> history, AtomicBoolean running) {
        Random rnd = new Random(1000L + id);
        ZooKeeper zk = null;
        int n = 0;
        try {
            zk = open(connect);
            while (running.get()) {
                String path = register(rnd.nextInt(REGISTERS));
                boolean write = rnd.nextBoolean();
                String value = id + "." + n++;
                KvOp op = write ? KvOp.put(path, value) : KvOp.get(path);
                var inv = history.invoke(id, op);
                try {
                    if (write) {
                        zk.setData(path, bytes(value), -1);
                        history.ok(inv, "OK");
                    } else {
                        history.ok(inv, new String(zk.getData(path, false, null), StandardCharsets.UTF_8));
                    }
                } catch (KeeperException.SessionExpiredException e) {
                    history.unknown(inv);
                    zk.close();
                    zk = open(connect);
                } catch (KeeperException e) {
                    history.unknown(inv);
                    Thread.sleep(20);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // No session within the connect time-out: this client stops; its operations so far stay in the history.
        } finally {
            if (zk != null) {
                try {
                    zk.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static ZooKeeper open(String connect) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            zk.close();
            throw new IOException("no ZooKeeper session on " + connect + " within 30 s");
        }
        return zk;
    }

    private static double elapsed(VoleryLoad load) {
        return (System.nanoTime() - load.startedAt()) / 1e9;
    }
}
