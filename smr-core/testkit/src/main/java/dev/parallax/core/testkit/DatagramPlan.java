package dev.parallax.core.testkit;

/**
 * How a {@link Simulation}'s unreliable datagram channel treats each copy of a datagram,
 * the channel M-Ring Paxos' coordinator IP-multicasts Phase 2A messages and decisions on (seed 003
 * (Ring Paxos / Multi-Ring / P-SMR) §3.3.2). Every receiving member draws its own fate: it loses
 * the datagram with {@code lossProbability}, otherwise receives it after its own delay, uniform in
 * [{@code minDelay}, {@code maxDelay}] (so receivers see different orders), and with
 * {@code duplicateProbability} receives a second copy after another independent delay. A datagram
 * larger than {@code maxPacketSize} bytes is refused at the sender, as a UDP socket refuses it.
 * Immutable; times are virtual nanoseconds.
 *
 * @param minDelay             smallest delay of one copy
 * @param maxDelay             largest delay of one copy
 * @param lossProbability      chance one receiver misses the datagram, independently of the others
 * @param duplicateProbability chance one receiver gets the datagram twice
 * @param maxPacketSize        largest datagram in bytes (as the simulation's datagram sizer measures it)
 */
public record DatagramPlan(long minDelay, long maxDelay, double lossProbability, double duplicateProbability,
                           int maxPacketSize) {

    /**
     * The default packet size: 8 KB, the size seed 003 §3.5.10 finds best for M-Ring Paxos
     * (§3.5.6 says 32 KB; a protocol that cares should measure and set it).
     */
    public static final int DEFAULT_PACKET_SIZE = 8 * 1024;

    /** @throws IllegalArgumentException on negative delays, {@code maxDelay < minDelay}, probabilities outside [0,1), or a packet size below 1 */
    public DatagramPlan {
        if (minDelay < 0 || maxDelay < minDelay) {
            throw new IllegalArgumentException("need 0 <= minDelay <= maxDelay");
        }
        if (lossProbability < 0 || lossProbability >= 1 || duplicateProbability < 0 || duplicateProbability >= 1) {
            throw new IllegalArgumentException("probabilities must be in [0,1)");
        }
        if (maxPacketSize < 1) {
            throw new IllegalArgumentException("maxPacketSize must be >= 1: " + maxPacketSize);
        }
    }

    public DatagramPlan withLoss(double loss, double duplicate) {
        return new DatagramPlan(minDelay, maxDelay, loss, duplicate, maxPacketSize);
    }

    public DatagramPlan withDelays(long min, long max) {
        return new DatagramPlan(min, max, lossProbability, duplicateProbability, maxPacketSize);
    }

    public DatagramPlan withMaxPacketSize(int bytes) {
        return new DatagramPlan(minDelay, maxDelay, lossProbability, duplicateProbability, bytes);
    }
}
