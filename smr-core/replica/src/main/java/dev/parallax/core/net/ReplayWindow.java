package dev.parallax.core.net;

import java.util.ArrayList;
import java.util.List;

/**
 * Refuses a datagram group's replayed datagrams: per sender and per sender epoch (one incarnation
 * of its port), the highest counter accepted and a {@value #WIDTH}-wide sliding window below it,
 * the anti-replay window of IPsec (RFC 4303 §3.4.3). A counter above the highest moves the window;
 * one inside it is accepted once; one below it is refused, so a datagram delayed past
 * {@value #WIDTH} later ones of its sender is lost like any datagram (the protocol retransmits).
 *
 * <p>A sender's epochs are remembered up to {@value #EPOCHS} (the least recently heard is
 * forgotten): a replay of an epoch still remembered is refused, so a sender's earlier incarnation
 * cannot be played back while its current one runs; one of a forgotten epoch (more than
 * {@value #EPOCHS} restarts ago), or any epoch after this receiver restarted, is accepted once per
 * counter. Those are copies of datagrams a member really sent, which the protocols tolerate as they
 * tolerate the network's own duplicates and delays; forgeries never get here (the tag is checked first).
 *
 * <p>Not thread-safe: the port's receiver thread owns it. Never blocks.
 */
final class ReplayWindow {
    /** Counters below the highest still accepted once. */
    static final int WIDTH = 64;
    /** Epochs remembered per sender. */
    static final int EPOCHS = 8;

    private final List<List<Epoch>> senders;

    /** A window for senders {@code 0 .. members - 1}. */
    ReplayWindow(int members) {
        senders = new ArrayList<>(members);
        for (int i = 0; i < members; i++) {
            senders.add(new ArrayList<>(2));
        }
    }

    /**
     * Whether the datagram numbered {@code counter} in {@code sender}'s {@code epoch} is new: if so it
     * is recorded, and a later copy is refused.
     *
     * @return false for a counter below 1, one already accepted, or one below the window
     */
    boolean accept(int sender, long epoch, long counter) {
        if (counter < 1) {
            return false;
        }
        List<Epoch> epochs = senders.get(sender);
        for (int i = 0; i < epochs.size(); i++) {
            Epoch e = epochs.get(i);
            if (e.epoch == epoch) {
                if (i != 0) { // most recently heard first
                    epochs.remove(i);
                    epochs.add(0, e);
                }
                return e.accept(counter);
            }
        }
        if (epochs.size() == EPOCHS) {
            epochs.remove(EPOCHS - 1);
        }
        Epoch e = new Epoch(epoch);
        epochs.add(0, e);
        return e.accept(counter);
    }

    /** One sender epoch: the highest counter and a bit per counter below it ({@code bit i}: highest − i seen). */
    private static final class Epoch {
        final long epoch;
        long highest;
        long seen;

        Epoch(long epoch) {
            this.epoch = epoch;
        }

        boolean accept(long counter) {
            if (counter > highest) {
                long shift = counter - highest;
                seen = shift >= WIDTH ? 1 : (seen << shift) | 1;
                highest = counter;
                return true;
            }
            long back = highest - counter;
            if (back >= WIDTH || (seen & (1L << back)) != 0) {
                return false;
            }
            seen |= 1L << back;
            return true;
        }
    }
}
