package dev.parallax.core.testkit;

import dev.parallax.core.spi.MessageHandler;
import dev.parallax.core.spi.Transport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An in-process network of {@link Transport}s for multi-threaded tests: {@code send} hands the
 * message straight to the receiver's handler on the sender's thread. Links can be cut and healed
 * to simulate partitions (messages on a cut link are lost, as when a TCP connection breaks).
 * {@code sendDatagram} hands one copy to every other started member (group numbers are not
 * checked: the network is one group), skipping cut links, and loses each copy with the seeded
 * probability set by {@link #loseDatagrams}, as a datagram group would.
 *
 * <p>Thread-safe.
 */
public final class LocalNetwork<M> {
    private final AtomicReferenceArray<MessageHandler<M>> handlers;
    private final Set<Long> cut = ConcurrentHashMap.newKeySet();
    private volatile double datagramLoss;
    private java.util.Random lossRandom = new java.util.Random(0);

    public LocalNetwork(int members) {
        this.handlers = new AtomicReferenceArray<>(members);
    }

    /** The transport of member {@code id}. */
    public Transport<M> transport(int id) {
        return new Endpoint(id);
    }

    /** Loses every message between {@code a} and {@code b}, both ways, until {@link #heal}. */
    public void cut(int a, int b) {
        cut.add(key(a, b));
        cut.add(key(b, a));
    }

    /** Cuts {@code id} off from every other member. */
    public void isolate(int id) {
        for (int other = 0; other < handlers.length(); other++) {
            if (other != id) {
                cut(id, other);
            }
        }
    }

    /** Loses each datagram copy with probability {@code rate}, drawn from a generator seeded by {@code seed}. */
    public synchronized void loseDatagrams(double rate, long seed) {
        if (!(rate >= 0 && rate <= 1)) {
            throw new IllegalArgumentException("loss rate must be in [0, 1]: " + rate);
        }
        lossRandom = new java.util.Random(seed);
        datagramLoss = rate;
    }

    private synchronized boolean lose() {
        return datagramLoss > 0 && lossRandom.nextDouble() < datagramLoss;
    }

    public void heal() {
        cut.clear();
    }

    private static long key(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }

    private final class Endpoint implements Transport<M> {
        private final int id;
        private volatile boolean closed;

        Endpoint(int id) {
            this.id = id;
        }

        @Override
        public int localId() {
            return id;
        }

        @Override
        public void start(MessageHandler<M> handler) {
            if (!handlers.compareAndSet(id, null, handler)) {
                throw new IllegalStateException("member " + id + " already started");
            }
        }

        @Override
        public boolean send(int to, M message) {
            if (to < 0 || to >= handlers.length()) {
                throw new IllegalArgumentException("no member " + to);
            }
            MessageHandler<M> h = handlers.get(to);
            if (closed || h == null || cut.contains(key(id, to))) {
                return !closed;
            }
            h.onMessage(id, message);
            return true;
        }

        @Override
        public boolean sendDatagram(int group, M message) {
            if (closed) {
                return false;
            }
            for (int to = 0; to < handlers.length(); to++) {
                MessageHandler<M> h = handlers.get(to);
                if (to == id || h == null || cut.contains(key(id, to)) || lose()) {
                    continue;
                }
                h.onMessage(id, message);
            }
            return true;
        }

        /** Every endpoint of the network is reachable: a member added at run time needs nothing more. */
        @Override
        public void addMember(int member, String host, int port) {
            if (member < 0 || member >= handlers.length()) {
                throw new IllegalArgumentException("no endpoint " + member + " in this network of " + handlers.length());
            }
        }

        /** A removed member is cut off from this endpoint, both ways. */
        @Override
        public void removeMember(int member) {
            cut(id, member);
        }

        @Override
        public void close() {
            closed = true;
            handlers.set(id, null);
        }
    }
}
