package dev.parallax.core.testkit;

/**
 * Counters of what a {@link Simulation} did, for tests that check the faults really happened.
 * Mutable, owned by the simulator's thread.
 */
public final class SimulationStats {
    long events;
    long delivered;
    long dropped;
    long duplicated;
    long partitioned;
    long crashes;
    long restarts;
    long partitionsStarted;
    long leaderCrashes;
    long leaderIsolations;
    long oneWayCuts;
    long bridges;
    long leaderPartialCuts;
    long datagramsSent;
    long datagramsDelivered;
    long datagramsLost;
    long datagramsDuplicated;
    long datagramsCut;
    long datagramsRefused;
    long pauses;
    long heldByPause;
    long queuedByPause;
    long crashAlls;
    long droppedByRule;

    public long events() {
        return events;
    }

    public long delivered() {
        return delivered;
    }

    /** Messages lost to the random drop probability. */
    public long dropped() {
        return dropped;
    }

    public long duplicated() {
        return duplicated;
    }

    /** Messages lost because sender and receiver were on different sides of a partition, or the receiver was down. */
    public long partitioned() {
        return partitioned;
    }

    public long crashes() {
        return crashes;
    }

    public long restarts() {
        return restarts;
    }

    public long partitionsStarted() {
        return partitionsStarted;
    }

    /** Nemesis actions that crashed the node named as the current leader (also counted in {@link #crashes()}). */
    public long leaderCrashes() {
        return leaderCrashes;
    }

    /** Nemesis actions that partitioned the current leader alone (also counted in {@link #partitionsStarted()}). */
    public long leaderIsolations() {
        return leaderIsolations;
    }

    /** One-way cuts of all of a node's inbound or outbound links ({@link Simulation#cutInbound}, {@link Simulation#cutOutbound}). */
    public long oneWayCuts() {
        return oneWayCuts;
    }

    /** Bridge partitions ({@link Simulation#bridge}). */
    public long bridges() {
        return bridges;
    }

    /**
     * Nemesis actions that aimed a partial partition at the current leader: a one-way cut of its
     * links or a bridge cutting it from part of the others (also counted in {@link #oneWayCuts()}
     * or {@link #bridges()}).
     */
    public long leaderPartialCuts() {
        return leaderPartialCuts;
    }

    /** Datagrams accepted for sending (refused ones not counted), however many members each reached. */
    public long datagramsSent() {
        return datagramsSent;
    }

    /** Datagram copies handed to a member (a duplicate counts twice, the loopback copy once). */
    public long datagramsDelivered() {
        return datagramsDelivered;
    }

    /** Datagram copies one member lost to {@link DatagramPlan#lossProbability()}. */
    public long datagramsLost() {
        return datagramsLost;
    }

    /** Second copies made by {@link DatagramPlan#duplicateProbability()}. */
    public long datagramsDuplicated() {
        return datagramsDuplicated;
    }

    /**
     * Datagram copies not delivered because sender and member were on different sides of a
     * partition, or the member crashed, restarted or left the group before the copy arrived.
     */
    public long datagramsCut() {
        return datagramsCut;
    }

    /** Datagrams refused at the sender for exceeding {@link DatagramPlan#maxPacketSize()}. */
    public long datagramsRefused() {
        return datagramsRefused;
    }

    /** Pauses started ({@link Simulation#pause}, by the nemesis or a test). */
    public long pauses() {
        return pauses;
    }

    /**
     * Messages and datagrams a paused sender held (sent, not yet arrived when it froze): each left
     * again, with a fresh delay, when the sender resumed, so it arrived late.
     */
    public long heldByPause() {
        return heldByPause;
    }

    /** Messages and datagrams that arrived at a paused node and were queued until it resumed. */
    public long queuedByPause() {
        return queuedByPause;
    }

    /** Times every replica was crashed at once ({@link Simulation#crashAll}); its crashes count in {@link #crashes()} too. */
    public long crashAlls() {
        return crashAlls;
    }

    /**
     * Messages lost to a {@link Simulation#dropMatching} rule (not counted in {@link #dropped()}) and
     * datagrams lost to a {@link Simulation#dropDatagramsMatching} rule (not in {@link #datagramsLost()}).
     */
    public long droppedByRule() {
        return droppedByRule;
    }

    @Override
    public String toString() {
        return "events=" + events + " delivered=" + delivered + " dropped=" + dropped + " duplicated=" + duplicated
                + " cut=" + partitioned + " crashes=" + crashes + " restarts=" + restarts
                + " partitions=" + partitionsStarted + " leaderCrashes=" + leaderCrashes
                + " leaderIsolations=" + leaderIsolations + " oneWayCuts=" + oneWayCuts + " bridges=" + bridges
                + " leaderPartialCuts=" + leaderPartialCuts + " datagramsSent=" + datagramsSent
                + " datagramsDelivered=" + datagramsDelivered + " datagramsLost=" + datagramsLost
                + " datagramsDuplicated=" + datagramsDuplicated + " datagramsCut=" + datagramsCut
                + " datagramsRefused=" + datagramsRefused + " pauses=" + pauses + " heldByPause=" + heldByPause
                + " queuedByPause=" + queuedByPause + " crashAlls=" + crashAlls + " droppedByRule=" + droppedByRule;
    }
}
