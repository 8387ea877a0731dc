package dev.parallax.core.testkit;

import dev.parallax.core.protocol.Effects;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.RecordCodec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A toy protocol for testing the generic harness and runtime: member 0 is a fixed sequencer that
 * numbers proposals and sends them to every member; each member persists (with sync) and decides
 * what it receives in order. Deterministic and single-threaded, like every core.
 */
public final class ToySequencer {
    private static final long MS = 1_000_000L;

    private ToySequencer() {
    }

    /** "Value {@code value} is number {@code instance}": both the message and the record. */
    public record Order(long instance, String value) {
    }

    public static final RecordCodec<Order> ORDERS = new RecordCodec<>() {
        @Override
        public ByteBuffer encode(Order o) {
            byte[] v = o.value().getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(8 + v.length).putLong(o.instance()).put(v).flip();
        }

        @Override
        public Order decode(ByteBuffer bytes) {
            ByteBuffer b = bytes.duplicate();
            long instance = b.getLong();
            byte[] v = new byte[b.remaining()];
            b.get(v);
            return new Order(instance, new String(v, StandardCharsets.UTF_8));
        }
    };

    /** The toy core: a fixed sequencer (member 0), three members, a heartbeat timer of 10 ms. */
    public static final class SequencerCore implements ProtocolCore<Order, Order, String> {
        final int id;
        long next;
        /** The sequencer's next number to hand out: ahead of {@link #next} while its own orders are in flight. */
        long proposed;
        long compactedBelow;
        long suspected = -1;

        /** The view last handed to {@link #onSuspect}, or -1. */
        public long suspected() {
            return suspected;
        }

        public SequencerCore(int id, List<Order> recovered) {
            this.id = id;
            for (Order o : recovered) {
                next = Math.max(next, o.instance() + 1);
            }
        }

        @Override
        public void onMessage(int from, Order o, long now, Effects<Order, Order, String> out) {
            if (o.instance() < next) {
                return;                                     // a duplicate
            }
            if (o.instance() > next) {
                out.snapshotNeeded(from, o.instance());     // a gap: this toy never fills it
            }
            next = o.instance() + 1;
            out.persist(o, true);
            out.decide(o.instance(), o.value());
        }

        @Override
        public void onTick(long now, Effects<Order, Order, String> out) {
            out.wakeAt(now + 10 * MS);
        }

        @Override
        public boolean onProposal(String value, long now, Effects<Order, Order, String> out) {
            if (id != 0) {
                return false;
            }
            proposed = Math.max(proposed, next);
            Order o = new Order(proposed++, value);
            for (int to = 0; to < 3; to++) {
                out.send(to, o);
            }
            return true;
        }

        @Override
        public void compact(long instance, Effects<Order, Order, String> out) {
            compactedBelow = instance;
            out.persist(new Order(next - 1, "checkpoint"), true);
        }

        @Override
        public void onSuspect(long view, long now, Effects<Order, Order, String> out) {
            suspected = view;
        }

        /** The last installed snapshot as the core was told it: "n" or "n [state]"; null if none. */
        private volatile String installed;

        /** What the last {@code skipTo} said, or null (read from any thread). */
        public String installed() {
            return installed;
        }

        @Override
        public void skipTo(long instance) {
            next = Math.max(next, instance);
            installed = Long.toString(instance);
        }

        @Override
        public void skipTo(long instance, java.nio.ByteBuffer deliveryState) {
            next = Math.max(next, instance);
            installed = instance + " [" + java.nio.charset.StandardCharsets.UTF_8.decode(deliveryState.duplicate()) + "]";
        }
    }

}
