package dev.parallax.bench.systems.zookeeper;

import dev.parallax.examples.volery.VoleryOracle;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The sequence of ZooKeeper operations one session of a {@link ZkWorkload} issues, deterministic
 * from the workload's seed and the session number. Session {@code k} owns the parent znode
 * {@code /bench-k}, its data znodes {@code /bench-k/d-<j>} (chosen so that CRC32(path) mod
 * {@value #BALANCE_MODULUS} hits every residue equally often: spread evenly over 1, 2, 4 or 8 Volery
 * partitions, seed 004 (S-SMR / Eyrie / Volery) §V-B) and the transient znodes
 * {@code /bench-k/t-<n>} its global commands create and delete: global commands alternate, a create
 * of {@code t-<n>} for the next n, then a delete of the oldest transient znode not yet deleted, so a
 * delete always names a znode the same session created before (ZooKeeper and Volery execute a
 * session's commands in order) and at most one transient znode per session lives between them.
 *
 * <p>Not thread-safe: its owner (a {@link ZooKeeperInvoker}) calls {@link #next} under its lock, so
 * the order of the sequence is the order of submission. Never blocks.
 */
public final class ZkSessionOps {
    /** Data znode names are balanced over CRC32(path) mod this (the largest partition count of the comparison). */
    public static final int BALANCE_MODULUS = 8;

    /** What an operation does. */
    public enum Kind {
        /** setData(path, command, -1): a local command of the path's owner. */
        SET_DATA,
        /** create(path, command, PERSISTENT): a global command. */
        CREATE,
        /** delete(path, -1): a global command. */
        DELETE,
        /** getData(path, no watch): a read of one of the session's data znodes (the load's reads). */
        GET_DATA
    }

    /** One operation: its kind and the znode it names. */
    public record Op(Kind kind, String path) {
    }

    private final String parent;
    private final List<String> dataPaths;
    private final double globalFraction;
    private final SplittableRandom random;
    private long created;
    private long deleted;

    /** The operations of session {@code session} of {@code workload}. */
    public ZkSessionOps(ZkWorkload workload, int session) {
        if (session < 0) {
            throw new IllegalArgumentException("session must be >= 0, not " + session);
        }
        this.parent = "/bench-" + session;
        this.dataPaths = balancedPaths(parent, workload.dataZnodes());
        this.globalFraction = workload.globalFraction();
        this.random = new SplittableRandom(workload.sessionSeed(session));
    }

    /** The session's parent znode, {@code /bench-<session>}. */
    public String parent() {
        return parent;
    }

    /** The session's data znodes, created before the load (in this order). */
    public List<String> dataPaths() {
        return dataPaths;
    }

    /** The next operation of the sequence. */
    public Op next() {
        if (globalFraction > 0 && random.nextDouble() < globalFraction) {
            if (deleted < created) {
                return new Op(Kind.DELETE, transientPath(deleted++));
            }
            return new Op(Kind.CREATE, transientPath(created++));
        }
        return new Op(Kind.SET_DATA, dataPaths.get(random.nextInt(dataPaths.size())));
    }

    /** The next read: a getData of one of the session's data znodes, drawn like a setData's. */
    public Op nextRead() {
        return new Op(Kind.GET_DATA, dataPaths.get(random.nextInt(dataPaths.size())));
    }

    private String transientPath(long n) {
        return parent + "/t-" + n;
    }

    /**
     * {@code count} child paths {@code parent/d-<j>} for j = 0, 1, ..., taking a candidate only while
     * its residue of CRC32(path) mod {@value #BALANCE_MODULUS} has fewer than its share
     * ({@code count / 8}, the first {@code count mod 8} residues one more), so every residue holds
     * its share.
     */
    static List<String> balancedPaths(String parent, int count) {
        int[] quota = new int[BALANCE_MODULUS];
        for (int r = 0; r < BALANCE_MODULUS; r++) {
            quota[r] = count / BALANCE_MODULUS + (r < count % BALANCE_MODULUS ? 1 : 0);
        }
        List<String> paths = new ArrayList<>(count);
        for (int j = 0; paths.size() < count; j++) {
            String path = parent + "/d-" + j;
            int r = VoleryOracle.partitionOf(path, BALANCE_MODULUS);
            if (quota[r] > 0) {
                quota[r]--;
                paths.add(path);
            }
        }
        return List.copyOf(paths);
    }
}
