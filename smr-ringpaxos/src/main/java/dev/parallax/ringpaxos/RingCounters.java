package dev.parallax.ringpaxos;

/**
 * The engine's own event counters: rounds started, rings re-formed, step-downs, refused and
 * malformed input, Phase 1 retransmissions and abandonments, exclusions and lagging members left
 * off a layout. {@link RingEngine#reportEvents} reports them, under fixed names, together with the
 * counts its collaborators keep themselves (catch-up, the acceptor, the learner, the variant).
 *
 * <p>Each counter has one writer: {@link RingRounds} counts what Phase 1 and the round changes do,
 * {@link RingLiveness} what the failure handling does, {@link RingEngine} the input it refuses.
 * Counts never decrease.
 *
 * <p>Not thread-safe: confined to the ring's protocol thread (the core's driver); never blocks.
 */
final class RingCounters {
    private long roundsStarted;
    private long reformations;
    private long stepDowns;
    private long malformed;
    private long stickyRefusals;
    private long proposalsDropped;
    private long phase1Retransmits;
    private long phase1Abandoned;
    private long stallExclusions;
    private long suspectExclusions;
    private long laggingLeftOut;

    // ------------------------------------------------------------ Phase 1 and rounds (RingRounds)

    void roundStarted() {
        roundsStarted++;
    }

    void steppedDown() {
        stepDowns++;
    }

    void stickyRefusal() {
        stickyRefusals++;
    }

    void phase1Retransmit() {
        phase1Retransmits++;
    }

    void phase1Abandoned() {
        phase1Abandoned++;
    }

    void laggingLeftOut(int members) {
        laggingLeftOut += members;
    }

    // ------------------------------------------------------------ failure handling (RingLiveness)

    void reformation() {
        reformations++;
    }

    void stallExclusion() {
        stallExclusions++;
    }

    void suspectExclusion() {
        suspectExclusions++;
    }

    // ------------------------------------------------------------ refused input (RingEngine)

    void malformed() {
        malformed++;
    }

    void proposalsDropped(int proposals) {
        proposalsDropped += proposals;
    }

    // ------------------------------------------------------------ reads

    long roundsStarted() {
        return roundsStarted;
    }

    long reformations() {
        return reformations;
    }

    long stepDowns() {
        return stepDowns;
    }

    long malformedInputs() {
        return malformed;
    }

    long stickyRefusals() {
        return stickyRefusals;
    }

    long proposalsDropped() {
        return proposalsDropped;
    }

    long phase1Retransmits() {
        return phase1Retransmits;
    }

    long phase1Abandonments() {
        return phase1Abandoned;
    }

    long stallExclusions() {
        return stallExclusions;
    }

    long suspectExclusions() {
        return suspectExclusions;
    }

    long laggingLeftOut() {
        return laggingLeftOut;
    }
}
