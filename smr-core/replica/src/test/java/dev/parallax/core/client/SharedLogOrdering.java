package dev.parallax.core.client;

import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.runtime.OrderingContext;
import dev.parallax.core.runtime.OrderingProtocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;

/**
 * An in-process stand-in for an ordering protocol, for client tests against real replicas: one
 * shared log in this JVM; every value proposed at any replica is appended and delivered to every
 * replica in log order, each replica on its own delivery thread. A replica's deliveries can be
 * held back (as if its link to the others were slow) until {@link #release} is called. While
 * {@link #dropProposals} is on, proposals are lost (as when no quorum accepted them and a new
 * leader never learned them): the replicas see nothing. The leader hint is fixed per replica.
 */
final class SharedLogOrdering {
    private record Entry(long sequence, ByteBuffer value) {
    }

    private final List<Node> members = new ArrayList<>();
    private long next = 1;
    private volatile boolean dropping;
    private final java.util.concurrent.atomic.AtomicInteger dropped = new java.util.concurrent.atomic.AtomicInteger();

    /** The ordering protocol of replica {@code id}, whose leader hint is {@code leaderHint}. */
    synchronized OrderingProtocol member(int id, int leaderHint, boolean held) {
        while (members.size() <= id) {
            members.add(null);
        }
        Node m = new Node(leaderHint, held);
        members.set(id, m);
        return new OrderingProtocol() {
            @Override
            public String name() {
                return "shared-log";
            }

            @Override
            public AtomicBroadcast create(OrderingContext context) {
                return m;
            }
        };
    }

    /** Lets replica {@code id} deliver what it was held back from. */
    void release(int id) {
        members.get(id).gate.countDown();
    }

    /** Loses every proposal while {@code drop} is on (an outage that orders nothing). */
    void dropProposals(boolean drop) {
        dropping = drop;
    }

    /** Proposals lost so far. */
    int dropped() {
        return dropped.get();
    }

    private synchronized void append(ByteBuffer value) {
        if (dropping) {
            dropped.incrementAndGet();
            return;
        }
        ByteBuffer copy = ByteBuffer.allocate(value.remaining()).put(value.duplicate()).flip();
        Entry e = new Entry(next++, copy);
        for (Node m : members) {
            if (!m.log.offer(e)) {
                throw new IllegalStateException("test log overflow");
            }
        }
    }

    private final class Node implements AtomicBroadcast {
        final BlockingQueue<Entry> log = new ArrayBlockingQueue<>(100_000);
        final CountDownLatch gate;
        final int leaderHint;
        private Thread delivery;

        Node(int leaderHint, boolean held) {
            this.leaderHint = leaderHint;
            this.gate = new CountDownLatch(held ? 1 : 0);
        }

        @Override
        public void start(DeliveryListener listener) {
            delivery = new Thread(() -> {
                try {
                    gate.await();
                    while (true) {
                        Entry e = log.take();
                        listener.deliver(e.sequence(), e.value().duplicate());
                    }
                } catch (InterruptedException e) {
                    // closed
                }
            }, "shared-log-delivery");
            delivery.setDaemon(true);
            delivery.start();
        }

        @Override
        public boolean propose(ByteBuffer value) {
            append(value);
            return true;
        }

        @Override
        public int redirectHint() {
            return leaderHint;
        }

        @Override
        public void close() {
            if (delivery != null) {
                delivery.interrupt();
                try {
                    delivery.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
