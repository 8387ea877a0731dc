package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.ringpaxos.RingPaxosCore;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Watches the leadership transfer a membership nemesis last asked for (rules T1–T4 of
 * {@code RingHandOver}): every {@link #WATCH} it looks at the target's core, and counts the transfer
 * taken once the target coordinates a round later than the one the transfer was asked in; past
 * {@link #TIMEOUTS} suspect time-outs it notes that the transfer did not take effect (the fault mix
 * may well prevent it: the target cut off or crashed, the coordinator deposed). A new transfer
 * replaces the one watched. Owned by the simulation thread.
 */
final class TransferWatch {
    /** How often the watched transfer is looked at. */
    static final long WATCH = 5 * RingMembershipNemesis.MS;
    /**
     * How many suspect time-outs a transfer has to take effect: one for the target to catch up
     * (T2: the coordinator gives up after one), one for its Phase 1.
     */
    static final int TIMEOUTS = 2;

    private final Simulation<Object> sim;
    private final Consumer<String> log;
    /** What the watched transfer is called in the log, null for none. */
    private String name;
    /** The target's core of the ring, null while the target or its ring is down. */
    private Supplier<RingPaxosCore> target;
    private long round;
    private long until;
    private boolean watching;
    private long taken;

    TransferWatch(Simulation<Object> sim, Consumer<String> log) {
        this.sim = sim;
        this.log = log;
    }

    /**
     * Watches a transfer accepted by a coordinator in {@code round} of a ring whose suspect time-out
     * is {@code suspectNanos}.
     *
     * @param name   how the log calls it ("transfer to 4", "ring 1 transfer to 4")
     * @param target the target's core of that ring (null while down)
     */
    void watch(String name, Supplier<RingPaxosCore> target, long round, long suspectNanos) {
        if (this.name != null) {
            log.accept(this.name + " not seen to take effect before the next");
        }
        this.name = name;
        this.target = target;
        this.round = round;
        this.until = sim.now() + TIMEOUTS * suspectNanos;
        if (!watching) {
            watching = true;
            sim.schedule(WATCH, "transfer watch", this::look);
        }
    }

    /** Transfers seen to take effect. */
    long taken() {
        return taken;
    }

    private void look() {
        RingPaxosCore core = name == null ? null : target.get();
        if (core != null && core.isCoordinator() && core.round() > round) {
            taken++;
            log.accept(name + " took effect in round " + core.round());
            name = null;
        } else if (name != null && sim.now() - until >= 0) {
            log.accept(name + " did not take effect");
            name = null;
        }
        watching = name != null;
        if (watching) {
            sim.schedule(WATCH, "transfer watch", this::look);
        }
    }
}
