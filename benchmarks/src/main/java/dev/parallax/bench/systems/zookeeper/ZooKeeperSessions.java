package dev.parallax.bench.systems.zookeeper;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The client side of a {@link ZooKeeperApiSystem}: the {@link ZkWorkload} its connections run and
 * the sessions ({@link ZooKeeperInvoker}) it opened, numbered 0, 1, ... in opening order, each with
 * a {@value #SESSION_TIMEOUT_SECONDS} s session timeout. Apache ZooKeeper ({@link ZooKeeperSystem})
 * and Volery ({@code VolerySystem}, seed 004 (S-SMR / Eyrie / Volery) §V-B) open their sessions
 * through it, so that both run the workload alike.
 *
 * <p>Not thread-safe: the system's owner thread calls it ({@link dev.parallax.bench.systems.BenchSystem}'s
 * lifecycle); {@link #open} blocks until the session is connected and its znodes exist.
 */
public final class ZooKeeperSessions implements AutoCloseable {
    /** The session timeout of every session, in seconds. */
    public static final int SESSION_TIMEOUT_SECONDS = 30;
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(SESSION_TIMEOUT_SECONDS);

    private final List<ZooKeeperInvoker> sessions = new ArrayList<>();
    private ZkWorkload workload = ZkWorkload.DEFAULT;

    /** The workload sessions opened later run ({@link ZkWorkload#DEFAULT} unless set). */
    public ZkWorkload workload() {
        return workload;
    }

    /**
     * Sets the workload sessions opened later run.
     *
     * @throws NullPointerException if {@code workload} is null
     */
    public void workload(ZkWorkload workload) {
        this.workload = Objects.requireNonNull(workload, "workload");
    }

    /** How many sessions were opened so far: the number the next one gets. */
    public int opened() {
        return sessions.size();
    }

    /**
     * Opens session number {@link #opened()} of the workload to {@code connectString}
     * ({@code host:port[,host:port...]}), as {@link ZooKeeperInvoker#connect}.
     *
     * @throws IOException          if the session does not connect in time or a znode cannot be created
     * @throws InterruptedException if interrupted while waiting
     */
    public ZooKeeperInvoker open(String connectString) throws IOException, InterruptedException {
        ZooKeeperInvoker session = ZooKeeperInvoker.connect(connectString, sessions.size(), workload, SESSION_TIMEOUT);
        sessions.add(session);
        return session;
    }

    /** Closes every session opened; later ones are numbered from 0 again. */
    @Override
    public void close() {
        sessions.forEach(ZooKeeperInvoker::close);
        sessions.clear();
    }
}
