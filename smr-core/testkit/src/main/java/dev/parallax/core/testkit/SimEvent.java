package dev.parallax.core.testkit;

/**
 * One event of a {@link Simulation}: something that happens at a virtual time. Events run in
 * (time, scheduling order) order: {@link EventLoop#push} stamps each with the next sequence number,
 * so two events at the same time run in the order they were scheduled, on every replay.
 *
 * <p>Not thread-safe: created and run on the simulation's single thread, by its {@link EventLoop}.
 */
abstract class SimEvent implements Comparable<SimEvent> {
    final long time;
    long seq;

    SimEvent(long time) {
        this.time = time;
    }

    /** The trace line, or {@code null} for events that leave none; asked when the event runs. */
    abstract String describe();

    abstract void run();

    @Override
    public int compareTo(SimEvent o) {
        int c = Long.compare(time, o.time);
        return c != 0 ? c : Long.compare(seq, o.seq);
    }
}
