package dev.parallax.ringpaxos;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Phase 2B entries an M-Ring acceptor received before it could vote (rule M3). seed 003 (Ring
 * Paxos) §3.3.2 and Alg. 2 l.28–32: an acceptor that receives {@code (PHASE 2B, c-rnd, c-vid)}
 * forwards it only if its {@code v-vid = c-vid}, i.e. only once it has ip-delivered the value
 * itself ("the acceptor can only vote if it has received the value and not only its unique
 * identifier"). A 2B that overtakes its 2A (TCP versus a lost or late datagram) waits here until
 * the 2A — usually the coordinator's re-multicast (M5) — arrives and this acceptor votes; then
 * {@link #release} says to forward it.
 *
 * <p>Bounded: at most {@code bound} entries (the coordinator's window bounds what can be open); a
 * further one is refused and counted ({@code mring.2b.beyond.window}), and the coordinator's
 * retransmission repairs the chain. A held entry of an older round is replaced by a newer round's.
 *
 * <p>Not thread-safe: owned by {@link DatagramPath} inside the core's single thread. Pure.
 */
final class Phase2BChain {
    private record Held(long round, ValueId vid) {
    }

    private final TreeMap<Long, Held> held = new TreeMap<>();
    private long refused;

    /**
     * Holds a 2B for {@code instance} of {@code round} naming {@code vid} until this acceptor votes.
     *
     * @return false if refused: the chain is full ({@code bound} reached) or a newer round's entry is held
     */
    boolean hold(long instance, long round, ValueId vid, int bound) {
        Held h = held.get(instance);
        if (h != null) {
            if (h.round() > round) {
                return false;
            }
            held.put(instance, new Held(round, vid));
            return true;
        }
        if (held.size() >= bound) {
            refused++;
            return false;
        }
        held.put(instance, new Held(round, vid));
        return true;
    }

    /**
     * This acceptor just voted {@code vid} at {@code instance} in {@code round}: whether a held 2B
     * matches it (and must now be forwarded). A held entry of the same instance that does not
     * match is dropped: the vote shows it is stale.
     */
    boolean release(long instance, long round, ValueId vid) {
        Held h = held.get(instance);
        if (h == null || h.round() > round) {
            return false;
        }
        held.remove(instance);
        return h.round() == round && h.vid().equals(vid);
    }

    /** Forgets held entries below {@code instance} (decided meanwhile) and those of rounds below {@code round}. */
    void forget(long instance, long round) {
        held.headMap(instance).clear();
        Iterator<Map.Entry<Long, Held>> it = held.entrySet().iterator();
        while (it.hasNext()) {
            if (it.next().getValue().round() < round) {
                it.remove();
            }
        }
    }

    /** Forgets everything (the round changed). */
    void clear() {
        held.clear();
    }

    /** Entries held now. */
    int size() {
        return held.size();
    }

    /** Entries refused for want of room so far. */
    long refused() {
        return refused;
    }
}
