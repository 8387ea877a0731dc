package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * The event queue and virtual clock of a {@link Simulation}: one priority queue of
 * {@link SimEvent}s ordered by (time, scheduling order), run one at a time; the clock jumps to each
 * event's time. After every event the invariants run; a throwable from an event or an invariant
 * ends the run with a {@link SimulationFailure} naming the seed and showing the trace's tail. Every
 * trace line of the run goes through {@link #record}.
 *
 * <p>Draws no random numbers. Not thread-safe: the test thread driving the simulation runs it, and
 * every event runs on that thread.
 */
final class EventLoop {
    private final long seed;
    private final SimulationStats stats;
    private final TraceRecorder trace;
    private final VirtualClock clock = new VirtualClock();
    private final PriorityQueue<SimEvent> events = new PriorityQueue<>();
    private final List<Runnable> invariants = new ArrayList<>();
    private long nextSeq;

    EventLoop(long seed, SimulationStats stats, TraceRecorder trace) {
        this.seed = seed;
        this.stats = stats;
        this.trace = trace;
    }

    /** Virtual time in nanoseconds. */
    long now() {
        return clock.nanoTime();
    }

    VirtualClock clock() {
        return clock;
    }

    /** Adds a trace line at the current virtual time. */
    void record(String line) {
        trace.record(now(), line);
    }

    void addInvariant(Runnable invariant) {
        invariants.add(invariant);
    }

    /** Queues {@code e}, after every event already queued for the same time. */
    void push(SimEvent e) {
        e.seq = nextSeq++;
        events.add(e);
    }

    /** Runs {@code action} at virtual time {@code now() + delay}, in order with network events. */
    void schedule(long delay, String label, Runnable action) {
        push(new SimEvent(now() + Math.max(0, delay)) {
            @Override
            String describe() {
                return "action " + label;
            }

            @Override
            void run() {
                action.run();
            }
        });
    }

    /** Runs every event up to virtual time {@code time}, then sets the clock there. */
    void runUntil(long time) {
        while (!events.isEmpty() && events.peek().time <= time) {
            step();
        }
        clock.advanceTo(Math.max(time, now()));
    }

    /** Runs until {@code done} holds (checked after every event) or virtual time passes {@code deadline}. */
    boolean runUntil(BooleanSupplier done, long deadline) {
        while (!done.getAsBoolean()) {
            if (events.isEmpty() || events.peek().time > deadline) {
                clock.advanceTo(Math.max(deadline, now()));
                return done.getAsBoolean();
            }
            step();
        }
        return true;
    }

    /** A failure from outside an event, naming the seed and showing the last events. */
    SimulationFailure failure(String message) {
        return new SimulationFailure(seed, now(), trace.tail(), new AssertionError(message));
    }

    private void step() {
        SimEvent e = events.poll();
        clock.advanceTo(e.time);
        stats.events++;
        try {
            String d = e.describe();
            if (d != null) {
                trace.record(e.time, d);
            }
            e.run();
            for (Runnable invariant : invariants) {
                invariant.run();
            }
        } catch (SimulationFailure f) {
            throw f;
        } catch (Throwable t) {
            throw new SimulationFailure(seed, now(), trace.tail(), t);
        }
    }
}
