package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.Effects;

/**
 * The hook by which amnesia recovery (rule C10, {@code RingRecovery}) takes part in the engine's
 * steps: while {@link #recovering()} the engine answers no Phase 1, votes and forwards nothing but
 * decisions, leads no round and keeps learning (Multi-Paxos' {@code AmnesiaRecovery} with rounds as
 * fences). The engine offers every message to {@link #onMessage} first and calls {@link #onTick} on
 * every tick while recovering. {@link #NONE} never recovers (a log that lost nothing).
 *
 * <p>Not thread-safe: the core's driver thread only; never blocks.
 */
public interface Recovery {

    /** Never recovering. */
    Recovery NONE = new Recovery() {
        @Override
        public boolean recovering() {
            return false;
        }

        @Override
        public boolean onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out) {
            return false;
        }

        @Override
        public void onTick(long now, Effects<RingWire, RingRecord, RingValue> out) {
        }
    };

    /** Whether this member still recovers state its log may have lost (it must not vote or promise). */
    boolean recovering();

    /** A message arrived; returns true if recovery consumed it (the engine then ignores it). */
    boolean onMessage(int from, RingWire m, long now, Effects<RingWire, RingRecord, RingValue> out);

    /** Time passed (called while {@link #recovering()}). */
    void onTick(long now, Effects<RingWire, RingRecord, RingValue> out);
}
