package dev.parallax.core.testkit;

/**
 * How hostile a {@link Simulation}'s world is: network delays, loss, duplication, and a nemesis
 * that partitions, crashes and restarts nodes; and, for the datagram channel, its own
 * {@link DatagramPlan}. Immutable; times are virtual nanoseconds.
 *
 * @param minDelay            smallest network delay
 * @param maxDelay            largest network delay (delays are uniform in between, which reorders)
 * @param dropProbability     chance a message is lost
 * @param duplicateProbability chance a message is delivered twice
 * @param nemesisInterval     mean time between nemesis actions; 0 disables the nemesis
 * @param maxCrashed          how many crashable nodes may be down at once
 * @param partitions          whether the nemesis partitions the network
 * @param tickInterval        period of every node's tick
 * @param datagrams           how the datagram channel loses, duplicates, delays and caps datagrams
 * @param partialPartitions   whether the nemesis' network faults (with {@code partitions} on) also
 *                            include partial partitions: a one-way cut of one node's inbound or
 *                            outbound links, and a bridge (two groups cut from each other, both
 *                            reaching the rest); off, it only splits the nodes in two. Off by
 *                            default, so that older plans replay their traces
 */
public record FaultPlan(long minDelay, long maxDelay, double dropProbability, double duplicateProbability,
                        long nemesisInterval, int maxCrashed, boolean partitions, long tickInterval,
                        DatagramPlan datagrams, boolean partialPartitions) {

    private static final long MS = 1_000_000L;

    public FaultPlan {
        if (minDelay < 0 || maxDelay < minDelay) {
            throw new IllegalArgumentException("need 0 <= minDelay <= maxDelay");
        }
        if (dropProbability < 0 || dropProbability >= 1 || duplicateProbability < 0 || duplicateProbability >= 1) {
            throw new IllegalArgumentException("probabilities must be in [0,1)");
        }
        if (tickInterval <= 0) {
            throw new IllegalArgumentException("tickInterval must be > 0");
        }
        if (datagrams == null) {
            throw new IllegalArgumentException("datagrams must not be null");
        }
    }

    /** A plan whose nemesis splits the network in two only (no partial partitions). */
    public FaultPlan(long minDelay, long maxDelay, double dropProbability, double duplicateProbability,
                     long nemesisInterval, int maxCrashed, boolean partitions, long tickInterval, DatagramPlan datagrams) {
        this(minDelay, maxDelay, dropProbability, duplicateProbability, nemesisInterval, maxCrashed, partitions,
                tickInterval, datagrams, false);
    }

    /**
     * A plan whose datagram channel faces the same delays, loss and duplication as point-to-point
     * messages, with packets of at most {@link DatagramPlan#DEFAULT_PACKET_SIZE} bytes.
     */
    public FaultPlan(long minDelay, long maxDelay, double dropProbability, double duplicateProbability,
                     long nemesisInterval, int maxCrashed, boolean partitions, long tickInterval) {
        this(minDelay, maxDelay, dropProbability, duplicateProbability, nemesisInterval, maxCrashed, partitions,
                tickInterval, new DatagramPlan(minDelay, maxDelay, dropProbability, duplicateProbability,
                        DatagramPlan.DEFAULT_PACKET_SIZE));
    }

    /** A reliable network with small delays and no nemesis. */
    public static FaultPlan reliable() {
        return new FaultPlan(100_000, 1 * MS, 0, 0, 0, 0, false, MS);
    }

    /**
     * The default hostile plan: delays 0.1–5 ms (reordering), 5% loss, 2% duplication, a nemesis
     * action every 100 ms on average, at most {@code maxCrashed} nodes down at once, partitions on;
     * datagrams face the same delays, loss and duplication, in packets of at most 8 KB.
     */
    public static FaultPlan hostile(int maxCrashed) {
        return new FaultPlan(100_000, 5 * MS, 0.05, 0.02, 100 * MS, maxCrashed, true, MS);
    }

    /** Point-to-point loss and duplication; the datagram channel keeps its own plan. */
    public FaultPlan withLoss(double drop, double duplicate) {
        return new FaultPlan(minDelay, maxDelay, drop, duplicate, nemesisInterval, maxCrashed, partitions, tickInterval,
                datagrams, partialPartitions);
    }

    public FaultPlan withNemesis(long interval, int crashed, boolean partition) {
        return new FaultPlan(minDelay, maxDelay, dropProbability, duplicateProbability, interval, crashed, partition,
                tickInterval, datagrams, partialPartitions);
    }

    /** Point-to-point delays; the datagram channel keeps its own plan. */
    public FaultPlan withDelays(long min, long max) {
        return new FaultPlan(min, max, dropProbability, duplicateProbability, nemesisInterval, maxCrashed, partitions,
                tickInterval, datagrams, partialPartitions);
    }

    /** The same plan with another datagram channel. */
    public FaultPlan withDatagrams(DatagramPlan plan) {
        return new FaultPlan(minDelay, maxDelay, dropProbability, duplicateProbability, nemesisInterval, maxCrashed,
                partitions, tickInterval, plan, partialPartitions);
    }

    /**
     * The same plan whose nemesis, when it partitions, also cuts one node's links one way and
     * builds bridge partitions ({@code on}), or only splits the nodes in two ({@code !on}).
     */
    public FaultPlan withPartialPartitions(boolean on) {
        return new FaultPlan(minDelay, maxDelay, dropProbability, duplicateProbability, nemesisInterval, maxCrashed,
                partitions, tickInterval, datagrams, on);
    }
}
