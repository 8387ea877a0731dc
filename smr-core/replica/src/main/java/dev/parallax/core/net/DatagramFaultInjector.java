package dev.parallax.core.net;

import dev.parallax.core.runtime.DatagramFaults;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Applies {@link DatagramFaults} to a stream of received datagrams, as a lossy network would
 * (seed 003 (Ring Paxos) §3.3.2: ip-multicast loses, duplicates and reorders): each item offered is
 * dropped with probability {@code drop}; otherwise it is passed on once, or twice with probability
 * {@code duplicate}. With a reorder window {@code w ≥ 2} the items passed on are held until {@code w}
 * are held, then released in a shuffled order, so no item moves more than {@code w − 1} places; held
 * items also leave, shuffled, once the oldest has waited {@link #FLUSH_AFTER_NANOS}
 * ({@link #flush}), so a quiet group does not keep a datagram forever. Every draw comes from one
 * random generator seeded by the faults' seed and a salt (the receiving member), so a given
 * sequence of offers and flushes gives the same output.
 *
 * <p>Time is given, never read: the caller passes its clock's reading. Not thread-safe: one
 * thread (the receiver of a {@link DatagramPort}) offers and flushes; never blocks.
 *
 * @param <T> the item type (a datagram's bytes)
 */
public final class DatagramFaultInjector<T> {
    /** How long the oldest held item may wait before everything held is released. */
    public static final long FLUSH_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final DatagramFaults faults;
    private final SplittableRandom random;
    private final List<T> held = new ArrayList<>();
    private long oldestHeldAt;
    private long dropped;
    private long duplicated;

    /**
     * @param salt mixed into the faults' seed (the receiving member's id), so receivers do not drop the
     *             same datagrams
     */
    public DatagramFaultInjector(DatagramFaults faults, long salt) {
        this.faults = Objects.requireNonNull(faults);
        this.random = new SplittableRandom(faults.seed() * 0x9E3779B97F4A7C15L + salt);
    }

    /**
     * Offers one received item at time {@code now}; what is passed on (now or, held, at a later offer
     * or flush) goes to {@code out}.
     *
     * @return how many copies were passed on or held: 0 if dropped, 1, or 2 if duplicated
     */
    public int offer(T item, long now, Consumer<? super T> out) {
        Objects.requireNonNull(item);
        if (faults.drop() > 0 && random.nextDouble() < faults.drop()) {
            dropped++;
            return 0;
        }
        int copies = 1;
        if (faults.duplicate() > 0 && random.nextDouble() < faults.duplicate()) {
            copies = 2;
            duplicated++;
        }
        for (int c = 0; c < copies; c++) {
            pass(item, now, out);
        }
        return copies;
    }

    private void pass(T item, long now, Consumer<? super T> out) {
        int window = faults.reorderWindow();
        if (window <= 1) {
            out.accept(item);
            return;
        }
        if (held.isEmpty()) {
            oldestHeldAt = now;
        }
        held.add(item);
        if (held.size() >= window) {
            release(out);
        }
    }

    /**
     * Releases everything held, shuffled, if the oldest held item has waited
     * {@link #FLUSH_AFTER_NANOS} by {@code now}.
     *
     * @return how many items were released
     */
    public int flush(long now, Consumer<? super T> out) {
        if (held.isEmpty() || now - oldestHeldAt < FLUSH_AFTER_NANOS) {
            return 0;
        }
        return release(out);
    }

    private int release(Consumer<? super T> out) {
        for (int i = held.size() - 1; i > 0; i--) { // Fisher-Yates
            int j = random.nextInt(i + 1);
            T t = held.get(i);
            held.set(i, held.get(j));
            held.set(j, t);
        }
        int n = held.size();
        List<T> batch = new ArrayList<>(held);
        held.clear();
        batch.forEach(out);
        return n;
    }

    /** Items held for reordering now. */
    public int held() {
        return held.size();
    }

    /** Items dropped so far. */
    public long dropped() {
        return dropped;
    }

    /** Items duplicated so far. */
    public long duplicated() {
        return duplicated;
    }
}
