package dev.parallax.ringpaxos;

import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.testkit.ScriptedCluster;
import dev.parallax.core.protocol.Effects;
import dev.parallax.ringpaxos.RingMessage.RecoveryQuery;
import dev.parallax.ringpaxos.RingMessage.RecoveryReply;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * C10, recovery from amnesia ({@link RingRecovery}), the cases of smr-paxos'
 * {@code AmnesiaRecoveryTest} with rounds as fences: the recovering member needs fenced answers
 * from {@code n − quorum + 1} others; {@code H} and the fence come from those answers; it votes
 * again only once everything below {@code H} is decided, after a synced {@code Trim(H)} and
 * promise; and the peers' side of the fence.
 */
class RingRecoveryTest {
    private static final long MS = 1_000_000L;
    private static final RingConfig THREE = RingConfig.builder(3, Ring.Kind.M_RING)
            .retransmit(Duration.ofMillis(100)).build();
    private static final RingConfig FIVE = RingConfig.builder(5, Ring.Kind.U_RING)
            .retransmit(Duration.ofMillis(100)).build();

    private final EffectBuffer<RingWire, RingRecord, RingValue> out = new EffectBuffer<>();

    /** The engine's side, as far as the recovery sees it. */
    private static final class Host implements RingRecovery.Host {
        long rnd = -1;
        long firstUndecided;
        long highest = -1;
        long noted = -1;
        long trim = -1;

        @Override
        public long rnd() {
            return rnd;
        }

        @Override
        public long firstUndecided() {
            return firstUndecided;
        }

        @Override
        public void noteDecidedUpTo(long instance) {
            noted = instance;
        }

        @Override
        public void restoreAfterAmnesia(long trimBelow, long promise, Effects<RingWire, RingRecord, RingValue> out) {
            out.persist(new RingRecord.Trim(trimBelow), true);
            out.persist(new RingRecord.Promise(promise), true);
            trim = trimBelow;
            rnd = promise;
        }

        @Override
        public long highestVotedOrDecided() {
            return highest;
        }

        @Override
        public void promise(long round, Effects<RingWire, RingRecord, RingValue> out) {
            out.persist(new RingRecord.Promise(round), true);
            rnd = round;
        }
    }

    private List<Object> sentTo(int to) {
        List<Object> m = new ArrayList<>();
        for (EffectBuffer.Outgoing<RingWire> o : out.sends()) {
            if (o.to() == to) {
                m.add(o.message());
            }
        }
        return m;
    }

    @Test
    @DisplayName("C10: the fenced answers needed meet every Phase 1 quorum minus the asker (n − quorum + 1)")
    void neededAnswers() {
        assertThat(RingRecovery.neededAnswers(3, 2)).as("n=3: both peers").isEqualTo(2);
        assertThat(RingRecovery.neededAnswers(5, 3)).as("n=5: three of four").isEqualTo(3);
        assertThat(RingRecovery.neededAnswers(7, 4)).isEqualTo(4);
    }

    @Test
    @DisplayName("C10: the first tick queries every other member with the current round as fence; silent ones again after ring.retransmit")
    void queriesAndResends() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(THREE, 0, true, h);
        h.rnd = 3;
        r.onTick(MS, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new RecoveryQuery(3)).hasSize(2);
        assertThat(sentTo(0)).as("asks only other members").isEmpty();
        r.onMessage(1, new RecoveryReply(4, 3, true, -1), 2 * MS, out);
        out.clear();
        r.onTick(50 * MS, out);
        assertThat(out.sends()).as("before the retransmit period").isEmpty();
        r.onTick(MS + THREE.retransmitNanos(), out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::to).containsExactly(2);
        assertThat(r.recovering()).isTrue();
    }

    @Test
    @DisplayName("C10: three members need both peers (a duplicate answer counts once); five need three fenced answers")
    void answerCounts() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(THREE, 0, true, h);
        r.onTick(MS, out);
        r.onMessage(1, new RecoveryReply(1, 0, true, 3), 2 * MS, out);
        r.onMessage(1, new RecoveryReply(1, 0, true, 3), 2 * MS, out);
        assertThat(r.catchingUp()).isFalse();
        r.onMessage(2, new RecoveryReply(1, 0, true, -1), 3 * MS, out);
        assertThat(r.catchingUp()).isTrue();
        assertThat(r.decidedBelow()).isEqualTo(4);
        assertThat(h.noted).as("catch up to H - 1").isEqualTo(3);

        Host h5 = new Host();
        RingRecovery r5 = new RingRecovery(FIVE, 4, true, h5);
        r5.onTick(MS, out);
        r5.onMessage(0, new RecoveryReply(1, 0, true, -1), 2 * MS, out);
        r5.onMessage(1, new RecoveryReply(1, 0, true, -1), 2 * MS, out);
        assertThat(r5.recovering()).isTrue();
        r5.onMessage(3, new RecoveryReply(1, 0, true, -1), 2 * MS, out);
        assertThat(r5.recovering()).as("nothing to catch up: recovered at once").isFalse();
    }

    @Test
    @DisplayName("C10: an unfenced answer restarts the recovery round with the peer's higher round as fence; the old round's answers no longer count")
    void unfencedRestarts() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(THREE, 0, true, h);
        r.onTick(MS, out);
        out.clear();
        r.onMessage(1, new RecoveryReply(6, 0, false, 9), 2 * MS, out);
        assertThat(r.fence()).isEqualTo(6);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsOnly(new RecoveryQuery(6)).hasSize(2);
        r.onMessage(2, new RecoveryReply(1, 0, true, 2), 3 * MS, out); // answers the old round
        r.onMessage(1, new RecoveryReply(7, 6, true, 9), 3 * MS, out);
        assertThat(r.catchingUp()).isFalse();
        assertThat(r.rounds()).isEqualTo(2);
    }

    @Test
    @DisplayName("C10: voting resumes only once every instance below H is decided, after a synced Trim(H) and a promise above the fence")
    void resumesAfterCatchUp() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(THREE, 0, true, h);
        h.rnd = 2;
        r.onTick(MS, out);
        r.onMessage(1, new RecoveryReply(3, 2, true, 4), 2 * MS, out);
        r.onMessage(2, new RecoveryReply(4, 2, true, 7), 2 * MS, out);
        assertThat(r.decidedBelow()).isEqualTo(8);
        out.clear();
        h.firstUndecided = 7;
        r.onTick(3 * MS, out);
        assertThat(r.recovering()).as("instance 7 is not decided yet").isTrue();
        assertThat(out.records()).isEmpty();
        h.firstUndecided = 8;
        r.finishIfCaughtUp(out);
        assertThat(r.recovering()).isFalse();
        assertThat(out.records()).containsExactly(new RingRecord.Trim(8), new RingRecord.Promise(3));
        assertThat(out.syncRequested()).isTrue();
    }

    @Test
    @DisplayName("C10: a peer whose promise is at most the fence promises fence + 1 durably before answering, and answers the same fence again fenced")
    void peerFences() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(THREE, 2, false, h);
        h.rnd = 2;
        h.highest = 5;
        r.onMessage(0, new RecoveryQuery(3), MS, out); // coordinator(4) = 1, not the asker
        assertThat(out.records()).containsExactly(new RingRecord.Promise(4));
        assertThat(out.syncRequested()).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(new RecoveryReply(4, 3, true, 5));
        out.clear();
        r.onMessage(0, new RecoveryQuery(3), 2 * MS, out);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .as("asked again: still fenced").containsExactly(new RecoveryReply(4, 3, true, 5));
    }

    @Test
    @DisplayName("C10: the fenced round is never one the recovering member coordinates (F + 2 if it coordinates F + 1)")
    void fencedRoundSkipsTheAsker() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(FIVE, 0, false, h);
        r.onMessage(1, new RecoveryQuery(0), MS, out); // coordinator(1) = 1: the asker
        assertThat(out.records()).containsExactly(new RingRecord.Promise(2));
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(new RecoveryReply(2, 0, true, -1));
        assertThat(r.fencedRound(3, 0)).isEqualTo(1);
    }

    @Test
    @DisplayName("C10: a peer with a higher promise answers unfenced and keeps its promise")
    void higherPromiseUnfenced() {
        Host h = new Host();
        RingRecovery r = new RingRecovery(THREE, 2, false, h);
        h.rnd = 7;
        r.onMessage(0, new RecoveryQuery(2), MS, out);
        assertThat(out.records()).isEmpty();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message).containsExactly(new RecoveryReply(7, 2, false, -1));
    }

    @Test
    @DisplayName("C10: a recovering member answers no recovery query; a member without amnesia, or alone, never recovers")
    void whoRecovers() {
        RingRecovery r = new RingRecovery(THREE, 0, true, new Host());
        r.onMessage(1, new RecoveryQuery(0), MS, out);
        assertThat(out.sends()).isEmpty();
        assertThat(new RingRecovery(THREE, 0, false, new Host()).recovering()).isFalse();
        assertThat(new RingRecovery(RingConfig.builder(1, Ring.Kind.M_RING).build(), 0, true, new Host()).recovering()).isFalse();
        RingRecovery healthy = new RingRecovery(THREE, 1, false, new Host());
        healthy.onTick(MS, out);
        assertThat(out.sends()).isEmpty();
    }

    // ------------------------------------------------------------ the whole core (M-Ring, n = 3)

    /** A scripted M-Ring cluster whose members in {@code amnesiac} restart with amnesia. */
    private static ScriptedCluster<RingPaxosCore, RingWire, RingRecord, RingValue> cluster(Set<Integer> amnesiac) {
        RingConfig config = RingConfig.builder(3, Ring.Kind.M_RING).build();
        return new ScriptedCluster<>(3, new RingRecordCodec(), (id, recovered, now) ->
                new RingPaxosCore(config, id, recovered, amnesiac.contains(id), now, now, RingPaxosCore.Observer.NONE));
    }

    private static void settle(ScriptedCluster<RingPaxosCore, RingWire, RingRecord, RingValue> c, int times) {
        for (int i = 0; i < times; i++) {
            c.tick(50 * MS);
            c.deliverAll(10_000);
        }
    }

    private static List<String> texts(List<RingValue> values) {
        List<String> t = new ArrayList<>();
        for (RingValue v : values) {
            RingValue.Chosen ch = (RingValue.Chosen) v;
            if (!ch.vid().isNoop()) {
                t.add(RingCluster.text(ch.bytes()));
            }
        }
        return t;
    }

    private static List<String> lines(ScriptedCluster<RingPaxosCore, RingWire, RingRecord, RingValue> c, String part) {
        return c.trace().stream().filter(l -> l.contains(part)).toList();
    }

    @Test
    @DisplayName("C10 in the core: an amnesiac member answers no Phase 1A and votes on no 2A while it recovers, then persists Trim(H) and its promise (sync) and votes again")
    void amnesiacMemberRecoversInTheCore() {
        Set<Integer> amnesiac = new HashSet<>();
        ScriptedCluster<RingPaxosCore, RingWire, RingRecord, RingValue> c = cluster(amnesiac);
        c.tick(MS);
        c.deliverAll(10_000);
        for (String s : List.of("a", "b", "c")) {
            c.propose(0, RingCluster.batch(s));
            c.deliverAll(10_000);
        }
        amnesiac.add(1); // the ring acceptor of round 0
        c.crashAndRestart(1);
        assertThat(c.core(1).recovering()).isTrue();
        c.trace().clear();
        c.tick(MS);
        assertThat(lines(c, "1 send ->0 RecoveryQuery")).hasSize(1);
        assertThat(lines(c, "1 send ->2 RecoveryQuery")).hasSize(1);
        c.propose(2, RingCluster.batch("d"));
        for (int i = 0; i < 40 && c.core(1).recovering(); i++) {
            c.deliverAll(10_000);
            List<String> ones = c.trace().stream().filter(l -> l.matches("\\d+ 1 .*")).toList();
            assertThat(ones).as("no promise, no vote, no Phase 1B while recovering")
                    .noneMatch(l -> l.contains("persist VoteRecord") || l.contains("persist Promise")
                            || l.contains("Phase1B") || l.contains("Phase2B"));
            c.tick(50 * MS);
        }
        assertThat(c.core(1).recovering()).isFalse();
        assertThat(lines(c, "0 send ->1 RecoveryReply")).isNotEmpty().allMatch(l -> l.contains("fenced=true"));
        List<String> restored = lines(c, "1 persist Trim");
        assertThat(restored).singleElement().asString().contains("Trim[instance=3]").endsWith("(sync)");
        settle(c, 20);
        c.propose(2, RingCluster.batch("e"));
        settle(c, 20);
        List<RingValue> at0 = c.delivered(0);
        assertThat(texts(at0)).containsSubsequence("a", "b", "c", "d", "e");
        assertThat(c.delivered(2)).isEqualTo(at0);
        assertThat(texts(c.delivered(1))).as("the recovered member learns what follows").contains("e");
    }
}
