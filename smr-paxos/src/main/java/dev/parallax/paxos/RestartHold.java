package dev.parallax.paxos;

/**
 * The restart hold and the start-up grace of one replica's {@link MultiPaxosCore}: when a replica
 * that was just (re)started may start a view, or step down for want of a quorum.
 *
 * <p><b>Restart hold</b> (a restarted replica never takes leadership from a working leader). A
 * replica restarted from a non-empty log starts no view — whatever its failure detector says —
 * until it has heard from some peer, or {@link PaxosConfig#restartHoldNanos()} after its start.
 * Until then it cannot know the view the others are in (it sits in the view it recovered, often
 * one it led itself), and the peers' connections to it come back with back-off; the first message
 * of a higher view moves it there, and it follows that view's leader. A suspicion that arrives
 * during the hold is kept ({@link #keepSuspicion}) and acted on when the hold ends, if the replica
 * still follows that view. The runtime adds the other half: its detector's clock starts only once
 * the local replay is handed to execution ({@link PaxosBroadcast}).
 *
 * <p><b>Start-up grace</b> of the check-quorum ({@link QuorumCheck}): until this incarnation has
 * heard any peer, and at most the same hold after its start, a leader does not step down for
 * want of a quorum. The processes of a new cluster start one after the other; the first leader
 * waits for them instead of stepping down (there is nobody to take over anyway), and one that
 * still hears nobody when the hold ends steps down.
 *
 * <p>Not thread-safe: owned by its core, on the driver thread; no clock of its own (every call
 * carries {@code now}).
 */
final class RestartHold {
    private final boolean recoveredAny;
    /** The hold ends at this time, or once a peer was heard. */
    private final long holdUntil;
    private boolean heardPeer;
    /** Whether any peer was ever heard by this incarnation (the start-up grace). */
    private boolean heardAnyPeer;
    /** A view the failure detector suspected during the hold, or -1. */
    private long heldSuspicion = -1;

    /**
     * @param recoveredAny whether the replica restarted from a non-empty log
     * @param now          the driver's clock at the core's creation
     */
    RestartHold(PaxosConfig config, boolean recoveredAny, long now) {
        this.recoveredAny = recoveredAny;
        this.holdUntil = now + config.restartHoldNanos();
        this.heardPeer = !recoveredAny;
    }

    /** Whether the replica restarted from a non-empty log (it never reuses a view it may have led). */
    boolean restarted() {
        return recoveredAny;
    }

    /**
     * A peer was heard: the hold ends.
     *
     * @return whether it is the first peer this incarnation heard (the start-up grace ends: a view
     *         started before any peer was up gets a full suspect timeout from now)
     */
    boolean heardPeer() {
        heardPeer = true;
        if (heardAnyPeer) {
            return false;
        }
        heardAnyPeer = true;
        return true;
    }

    /** Whether the hold keeps this replica from starting a view now. */
    boolean holding(long now) {
        return !heardPeer && now - holdUntil < 0;
    }

    /** Whether the check-quorum's start-up grace runs: no peer heard yet, within the hold. */
    boolean startingAlone(long now) {
        return !heardAnyPeer && now - holdUntil < 0;
    }

    /** The detector suspected the leader of {@code view} during the hold: act on it when it ends. */
    void keepSuspicion(long view) {
        heldSuspicion = view;
    }

    /**
     * Whether a suspicion of {@code view} is due now: the detector's ({@code suspected}) or one kept
     * during the hold, and the hold is over. Forgets the kept one when it answers true.
     */
    boolean suspicionDue(long view, boolean suspected, long now) {
        if ((suspected || heldSuspicion == view) && !holding(now)) {
            heldSuspicion = -1;
            return true;
        }
        return false;
    }
}
