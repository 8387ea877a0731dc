package dev.parallax.ringpaxos;

import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MessageCodec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Shared by the codec tests: one sample of every message, arbitraries spanning every field's valid
 * range ({@link RingWireBounds}), and byte-level helpers to build lying bodies.
 */
final class RingSamples {
    /** The cluster size the codecs under test check against. */
    static final int N = 5;

    static final Ring U = Ring.uRing(1, 2, new int[]{0, 1, 2, 3, 4});
    static final Ring M = Ring.mRing(4, new int[]{2, 0});
    static final ValueId V1 = new ValueId(2, 7, 1);
    static final ValueId V2 = new ValueId(4, 1_700_000_000_000L, 99);

    private RingSamples() {
    }

    static ByteBuffer bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return ByteBuffer.wrap(out).asReadOnlyBuffer();
    }

    static ByteBuffer empty() {
        return ByteBuffer.allocate(0).asReadOnlyBuffer();
    }

    /** One message of every {@link RingUnicast} kind, lists and values not empty. */
    static List<RingUnicast> unicastSamples() {
        return List.of(
                new RingMessage.Phase1A(3, 17),
                new RingMessage.Phase1B(3, 2, 5, List.of(new Vote(5, 1, V1, bytes(1, 2)), new Vote(6, 2, ValueId.NOOP, empty())), 9),
                new RingMessage.Heartbeat(4, U, 9, 7),
                new RingMessage.Alive(4, 9, 8, 1, 12, true),
                new RingMessage.StepDown(4),
                new RingMessage.CatchUpQuery(4, 1, 9),
                new RingMessage.CatchUpReply(4, 1, List.of(new DecisionEntry(1, V1, bytes(9)), new DecisionEntry(2, V2, null)),
                        List.of(new Phase2Entry(3, V2, bytes(3, 3)))),
                new RingMessage.Proposal(4, List.of(new ProposalEntry(V1, bytes(7, 7, 7)))),
                new RingMessage.RecoveryQuery(5),
                new RingMessage.RecoveryReply(6, 5, true, 41),
                new RingMessage.HandOver(7, 2),
                new RingMessage.ReadConfirm(7, 3),
                new RingMessage.ReadConfirmAck(7, 3),
                new RingMessage.ReadIndexRequest(7, 99),
                new RingMessage.ReadIndexReply(7, 99, 41),
                new RingMessage.SkipDemand(7, 1_000),
                new UPacket(8, U, List.of(new Phase2Entry(10, V1, bytes(1)), new Phase2Entry(11, ValueId.NOOP, empty())),
                        List.of(new DecisionEntry(9, V2, null), new DecisionEntry(8, V1, bytes(4, 5))),
                        List.of(new ProposalEntry(V2, bytes(6)))),
                new MRingMessage.Phase2B(8, List.of(new InstanceVid(10, V1), new InstanceVid(11, ValueId.NOOP))),
                new MRingMessage.Phase2AUnicast(8, M, List.of(new Phase2Entry(12, V2, bytes(1, 2, 3)))));
    }

    /** Every concrete {@link RingUnicast} class. */
    static List<Class<?>> unicastKinds() {
        List<Class<?>> kinds = new ArrayList<>(List.of(RingMessage.class.getPermittedSubclasses()));
        kinds.add(UPacket.class);
        Collections.addAll(kinds, MRingMessage.class.getPermittedSubclasses());
        return kinds;
    }

    static <M> byte[] body(MessageCodec<M> codec, M m) {
        ByteBuffer b = ByteBufferWire.encode(codec, m).body();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    static <M> M decode(MessageCodec<M> codec, int type, byte[] body) {
        return ByteBufferWire.decode(codec, type, ByteBuffer.wrap(body));
    }

    static <M> M roundTrip(MessageCodec<M> codec, M m) {
        ByteBufferWire.Encoded e = ByteBufferWire.encode(codec, m);
        return ByteBufferWire.decode(codec, e.type(), e.body());
    }

    static void writeInt(byte[] b, int at, int v) {
        ByteBuffer.wrap(b).putInt(at, v);
    }

    static void writeLong(byte[] b, int at, long v) {
        ByteBuffer.wrap(b).putLong(at, v);
    }

    // ---- arbitraries ----

    static Arbitrary<Long> number() {
        return Arbitraries.longs().between(0, RingWireBounds.MAX_NUMBER);
    }

    static Arbitrary<ValueId> vid() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just(ValueId.NOOP)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(1, RingWireBounds.MAX_NUMBER).map(ValueId::skip)),
                net.jqwik.api.Tuple.of(6, Combinators.combine(Arbitraries.integers().between(0, N - 1), number(),
                        Arbitraries.longs().between(1, RingWireBounds.MAX_NUMBER)).as(ValueId::new)));
    }

    static Arbitrary<ByteBuffer> body() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(40).map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
    }

    /** A value id with a body that fits it (a NOOP or a skip carries none). */
    static Arbitrary<ProposalEntry> valued() {
        return Combinators.combine(vid(), body()).as((v, b) -> new ProposalEntry(v, v.isBodiless() ? empty() : b));
    }

    static Arbitrary<Ring> ring() {
        Arbitrary<List<Integer>> members = Arbitraries.shuffle(0, 1, 2, 3, 4)
                .flatMap(all -> Arbitraries.integers().between(1, N).map(k -> all.subList(0, k)));
        return members.flatMap(order -> {
            int[] ids = order.stream().mapToInt(Integer::intValue).toArray();
            Arbitrary<Ring> u = Arbitraries.integers().between(1, ids.length)
                    .map(acceptors -> new Ring(Ring.Kind.U_RING, ids, acceptors));
            return Arbitraries.oneOf(u, Arbitraries.just(new Ring(Ring.Kind.M_RING, ids, ids.length)));
        });
    }

    static Arbitrary<Phase2Entry> phase2() {
        return Combinators.combine(number(), valued()).as((i, p) -> new Phase2Entry(i, p.vid(), p.value()));
    }

    static Arbitrary<DecisionEntry> decision() {
        return Combinators.combine(number(), valued(), Arbitraries.of(true, false))
                .as((i, p, has) -> new DecisionEntry(i, p.vid(), has ? p.value() : null));
    }

    static Arbitrary<ProposalEntry> proposal() {
        return valued().filter(p -> !p.vid().isBodiless());
    }

    static Arbitrary<InstanceVid> instanceVid() {
        return Combinators.combine(number(), vid()).as(InstanceVid::new);
    }

    static Arbitrary<Vote> vote() {
        return Combinators.combine(number(), number(), valued()).as((i, r, p) -> new Vote(i, r, p.vid(), p.value()));
    }

    static Arbitrary<RingUnicast> unicast() {
        Arbitrary<Long> n = number();
        Arbitrary<Long> orNone = Arbitraries.oneOf(Arbitraries.just(-1L), n);
        Arbitrary<Boolean> flag = Arbitraries.of(true, false);
        return Arbitraries.oneOf(
                Combinators.combine(n, n).as((r, f) -> (RingUnicast) new RingMessage.Phase1A(r, f)),
                Combinators.combine(n, n, n, vote().list().ofMaxSize(5), orNone)
                        .as((r, t, d, v, c) -> (RingUnicast) new RingMessage.Phase1B(r, t, d, v, c)),
                Combinators.combine(n, Arbitraries.oneOf(ring(), Arbitraries.just(null)), n, n)
                        .as((r, ring, d, f) -> (RingUnicast) new RingMessage.Heartbeat(r, ring, d, f)),
                Combinators.combine(n, n, n, n, orNone, flag)
                        .as((r, d, del, b, l, w) -> (RingUnicast) new RingMessage.Alive(r, d, del, b, l, w)),
                n.map(r -> (RingUnicast) new RingMessage.StepDown(r)),
                Combinators.combine(n, n, n).as((r, f, t) -> (RingUnicast) new RingMessage.CatchUpQuery(r, Math.min(f, t), Math.max(f, t))),
                Combinators.combine(n, n, decision().list().ofMaxSize(5), phase2().list().ofMaxSize(5))
                        .as((r, f, d, v) -> (RingUnicast) new RingMessage.CatchUpReply(r, f, d, v)),
                Combinators.combine(n, proposal().list().ofMaxSize(5)).as((r, p) -> (RingUnicast) new RingMessage.Proposal(r, p)),
                n.map(f -> (RingUnicast) new RingMessage.RecoveryQuery(f)),
                Combinators.combine(n, n, flag, orNone).as((r, f, fenced, h) -> (RingUnicast) new RingMessage.RecoveryReply(r, f, fenced, h)),
                Combinators.combine(n, Arbitraries.integers().between(0, 2))
                        .as((r, s) -> (RingUnicast) new RingMessage.HandOver(r, s)),
                Combinators.combine(n, n).as((r, q) -> (RingUnicast) new RingMessage.ReadConfirm(r, q)),
                Combinators.combine(n, n).as((r, q) -> (RingUnicast) new RingMessage.ReadConfirmAck(r, q)),
                Combinators.combine(n, Arbitraries.longs()).as((r, read) -> (RingUnicast) new RingMessage.ReadIndexRequest(r, read)),
                Combinators.combine(orNone, Arbitraries.longs(), orNone)
                        .as((r, read, p) -> (RingUnicast) new RingMessage.ReadIndexReply(r, read, p)),
                Combinators.combine(n, n).as((r, upTo) -> (RingUnicast) new RingMessage.SkipDemand(r, upTo)),
                Combinators.combine(n, ring(), phase2().list().ofMaxSize(5), decision().list().ofMaxSize(5), proposal().list().ofMaxSize(5))
                        .as((r, ring, p2, d, p) -> (RingUnicast) new UPacket(r, ring, p2, d, p)),
                Combinators.combine(n, instanceVid().list().ofMaxSize(5)).as((r, v) -> (RingUnicast) new MRingMessage.Phase2B(r, v)),
                Combinators.combine(n, ring(), phase2().list().ofMaxSize(5))
                        .as((r, ring, v) -> (RingUnicast) new MRingMessage.Phase2AUnicast(r, ring, v)));
    }

    static Arbitrary<MPacket> mPacket() {
        return Combinators.combine(number(), ring(), instanceVid().list().ofMaxSize(8), phase2().list().ofMaxSize(8))
                .as(MPacket::new);
    }
}
