package dev.parallax.ringpaxos;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The M-Ring coordinator's open Phase 2A entries and their re-sending (rule M5). seed 003 (Ring
 * Paxos) §3.3.4 ¶2: "If the coordinator does not receive a response to its Phase 1A / 2A messages,
 * it re-sends them". An entry is open from {@link #opened} until the coordinator decides it
 * ({@link #closed}) or the round ends ({@link #clear}); once it has been waiting
 * {@code retransmitNanos} since its last send it is due again, oldest first, at most
 * {@code maxBytes} of values per tick (the first due entry always goes, so one huge value is
 * never stuck). Re-sending the same (instance, round, vid) is safe: acceptors re-vote
 * idempotently (C4), and {@code first()} re-sends its 2B, which repairs a chain a lost 2B broke.
 *
 * <p>Not thread-safe: owned by {@link DatagramPath} inside the core's single thread. Pure.
 */
final class Retransmitter {
    /** One open entry: what was sent, in which round and ring, how, and when last. */
    record Open(Phase2Entry entry, long round, Ring ring, boolean unicast, long sentAt) {
    }

    /** By instance, in order of last send (oldest first): re-sending moves an entry to the end. */
    private final LinkedHashMap<Long, Open> open = new LinkedHashMap<>();
    private long retransmitted;

    /** The coordinator sent {@code entry} in {@code round} at {@code now} (by unicast if it was too big for a datagram). */
    void opened(Phase2Entry entry, long round, Ring ring, boolean unicast, long now) {
        open.remove(entry.instance());
        open.put(entry.instance(), new Open(entry, round, ring, unicast, now));
    }

    /** {@code instance} is decided: no more re-sending. */
    void closed(long instance) {
        open.remove(instance);
    }

    /** The round ended: nothing of it is re-sent. */
    void clear() {
        open.clear();
    }

    /** Entries open now. */
    int size() {
        return open.size();
    }

    /** Entries re-sent so far (event {@code mring.2a.retransmits}). */
    long retransmitted() {
        return retransmitted;
    }

    /**
     * The entries due at {@code now}, oldest first, within {@code maxBytes} of values; each is
     * marked sent at {@code now}. Entries {@code decided} meanwhile (by a catch-up, say) are
     * dropped instead.
     */
    List<Open> due(long now, long retransmitNanos, long maxBytes, LongPredicate decided) {
        List<Open> due = new ArrayList<>();
        long bytes = 0;
        Iterator<Open> it = open.values().iterator();
        while (it.hasNext()) {
            Open o = it.next();
            if (decided.test(o.entry().instance())) {
                it.remove();
                continue;
            }
            if (now - o.sentAt() < retransmitNanos) {
                break; // the rest were sent later
            }
            int size = o.entry().value() == null ? 0 : o.entry().value().remaining();
            if (!due.isEmpty() && bytes + size > maxBytes) {
                break;
            }
            bytes += size;
            due.add(o);
            it.remove();
        }
        for (Open o : due) {
            open.put(o.entry().instance(), new Open(o.entry(), o.round(), o.ring(), o.unicast(), now));
        }
        retransmitted += due.size();
        return due;
    }
}
