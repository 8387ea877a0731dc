package dev.parallax.bench.systems.zookeeper;

import java.util.Locale;

/**
 * The ZooKeeper-API workload of the Volery comparison (seed 004 (S-SMR / Eyrie / Volery) §VI, "local
 * commands consisted of calls to setData, while global commands were invocations to create and
 * delete"): each command of a session is, with probability {@link #globalFraction}, a global command
 * (a create of a fresh znode under the session's parent, then, the next time, a delete of the oldest
 * one it created; Volery multicasts both to every partition), otherwise a local one, a setData on
 * one of the session's {@link #dataZnodes} data znodes (Volery sends it to the path's owner,
 * CRC32(path) mod P). The bytes of setData and create are the load's command (its size is the
 * {@code --size} of {@code ./parallax bench}); deletes carry only a path. Session {@code k}'s
 * choices come from {@code seed} and {@code k} alone ({@link #sessionSeed}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param globalFraction g, the probability of a global command, 0..1 (default 0: setData only)
 * @param dataZnodes     data znodes per session (default {@value #DEFAULT_DATA_ZNODES}); a multiple of
 *                       {@value ZkSessionOps#BALANCE_MODULUS} spreads them evenly over 1, 2, 4 and 8 partitions
 * @param seed           the seed of every session's choices (default 1)
 */
public record ZkWorkload(double globalFraction, int dataZnodes, long seed) {
    /** Data znodes per session when not chosen: two per residue of CRC32(path) mod 8. */
    public static final int DEFAULT_DATA_ZNODES = 16;
    /** setData only, {@value #DEFAULT_DATA_ZNODES} data znodes per session, seed 1. */
    public static final ZkWorkload DEFAULT = new ZkWorkload(0, DEFAULT_DATA_ZNODES, 1);

    /** @throws IllegalArgumentException if the fraction is not in 0..1 or there are no data znodes */
    public ZkWorkload {
        if (!(globalFraction >= 0 && globalFraction <= 1)) {
            throw new IllegalArgumentException("global fraction must be in 0..1, not " + globalFraction);
        }
        if (dataZnodes < 1 || dataZnodes > 1 << 16) {
            throw new IllegalArgumentException("data znodes per session must be 1..65536, not " + dataZnodes);
        }
    }

    /**
     * The default workload with {@code percent} % global commands.
     *
     * @throws IllegalArgumentException if percent is not in 0..100
     */
    public static ZkWorkload globalPercent(double percent) {
        if (!(percent >= 0 && percent <= 100)) {
            throw new IllegalArgumentException("global commands must be 0..100 %, not " + percent);
        }
        return new ZkWorkload(percent / 100, DEFAULT_DATA_ZNODES, DEFAULT.seed());
    }

    /** The seed of session {@code session}'s choices. */
    public long sessionSeed(int session) {
        return seed * 0x9E3779B97F4A7C15L + session * 7919L + 1;
    }

    /**
     * The suffix a system running this workload adds to its name: empty with no global commands,
     * else {@code -g<percent>} ({@code -g10}, {@code -g0.5}), so that results of different mixes
     * do not share a name.
     */
    public String nameSuffix() {
        if (globalFraction == 0) {
            return "";
        }
        double percent = globalFraction * 100;
        return "-g" + (percent == Math.rint(percent) ? Long.toString(Math.round(percent))
                : String.format(Locale.ROOT, "%s", stripZeros(percent)));
    }

    private static String stripZeros(double v) {
        String s = String.format(Locale.ROOT, "%.4f", v);
        return s.replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    /** One line for a system's settings. */
    public String describe() {
        return String.format(Locale.ROOT, "%s %% global (create of a fresh znode / delete of the oldest, alternately), "
                + "the rest setData on %d data znodes per session spread over CRC32(path) mod 8; payload = the command "
                + "(--size bytes); seed %d", stripZeros(globalFraction * 100), dataZnodes, seed);
    }
}
