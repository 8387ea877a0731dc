package dev.parallax.paxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.core.spi.MalformedMessageException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

import static dev.parallax.paxos.CoreFixtures.CONFIG;
import static dev.parallax.paxos.CoreFixtures.v;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Wire input that lies: views and instance numbers outside the ranges the
 * protocol can reach are refused by the codec ({@link MalformedMessageException}, so the transport
 * counts a bad frame) and ignored by the core (for transports that hand messages over without a
 * codec), and no view near {@link Long#MAX_VALUE} makes the core loop.
 */
class LyingWireInputTest {
    /** The time a step may take before we call it a loop: a step takes microseconds, a loop 2^63 iterations. */
    private static final Duration NO_LOOP = Duration.ofSeconds(30);

    private final PaxosMessageCodec codec = new PaxosMessageCodec();
    private final EffectBuffer<PaxosMessage, PaxosRecord, Value> out = new EffectBuffer<>();

    private PaxosMessage roundTrip(PaxosMessage m) {
        ByteBufferWire.Encoded e = ByteBufferWire.encode(codec, m);
        ByteBuffer body = e.body();
        return ByteBufferWire.decode(codec, e.type(), body);
    }

    private static final Value X = v("x");

    /** Messages whose view or instance numbers no correct replica sends. */
    private static final List<PaxosMessage> LIES = List.of(
            new PaxosMessage.Prepare(-1, 0),
            new PaxosMessage.Prepare(Long.MAX_VALUE, 0),
            new PaxosMessage.Prepare(3, -5),
            new PaxosMessage.Prepare(3, Long.MAX_VALUE),
            new PaxosMessage.PrepareOk(Long.MIN_VALUE, 0, List.of()),
            new PaxosMessage.PrepareOk(3, -1, List.of()),
            new PaxosMessage.PrepareOk(3, 0, List.of(), -2),
            new PaxosMessage.PrepareOk(3, 0, List.of(), Long.MAX_VALUE),
            new PaxosMessage.PrepareOk(3, 0, List.of(new PaxosMessage.Accepted(Long.MAX_VALUE, 1, X))),
            new PaxosMessage.PrepareOk(3, 0, List.of(new PaxosMessage.Accepted(-1, 1, X))),
            new PaxosMessage.PrepareOk(3, 0, List.of(new PaxosMessage.Accepted(4, -1, X))),
            new PaxosMessage.PrepareOk(3, 0, List.of(new PaxosMessage.Accepted(4, Long.MAX_VALUE, X))),
            new PaxosMessage.Propose(Long.MAX_VALUE - 1, 0, X),
            new PaxosMessage.Propose(3, -1, X),
            new PaxosMessage.Propose(3, Long.MAX_VALUE, X),
            new PaxosMessage.Accept(-7, 0),
            new PaxosMessage.Accept(3, Long.MIN_VALUE),
            new PaxosMessage.Heartbeat(Long.MAX_VALUE, 0),
            new PaxosMessage.Heartbeat(3, Long.MIN_VALUE),
            new PaxosMessage.Heartbeat(3, Long.MAX_VALUE),
            new PaxosMessage.CatchUpQuery(3, -1, 5),
            new PaxosMessage.CatchUpQuery(3, 9, 5),
            new PaxosMessage.CatchUpQuery(3, 0, Long.MAX_VALUE),
            new PaxosMessage.CatchUpReply(3, -1, List.of()),
            new PaxosMessage.CatchUpReply(3, 0, List.of(new PaxosMessage.Decided(-3, X))),
            new PaxosMessage.CatchUpReply(3, 0, List.of(new PaxosMessage.Decided(Long.MAX_VALUE, X))),
            new PaxosMessage.RecoveryQuery(Long.MAX_VALUE),
            new PaxosMessage.RecoveryQuery(-1),
            new PaxosMessage.RecoveryReply(3, -1, true, 0),
            new PaxosMessage.RecoveryReply(3, Long.MAX_VALUE, true, 0),
            new PaxosMessage.RecoveryReply(3, 2, true, -2),
            new PaxosMessage.RecoveryReply(3, 2, true, Long.MAX_VALUE),
            new PaxosMessage.HeartbeatAck(-1, 0),
            new PaxosMessage.HeartbeatAck(3, Long.MAX_VALUE),
            new PaxosMessage.PreVote(Long.MAX_VALUE, 0),
            new PaxosMessage.PreVote(3, -1),
            new PaxosMessage.PreVoteReply(3, -1, true),
            new PaxosMessage.PreVoteReply(3, Long.MAX_VALUE, false),
            new PaxosMessage.PreVoteReply(Long.MIN_VALUE, 3, true),
            new PaxosMessage.StepDown(-2),
            new PaxosMessage.StepDown(Long.MAX_VALUE));

    @Test
    void theCodecRefusesEveryLyingViewOrInstanceAsAMalformedMessage() {
        for (PaxosMessage lie : LIES) {
            assertThatThrownBy(() -> roundTrip(lie)).as("%s", lie).isInstanceOf(MalformedMessageException.class);
        }
    }

    /** Long.MAX_VALUE mod 32 = 31, so replica 31 "leads" it and must start the next view it leads. */
    @Test
    void aViewAtLongMaxValueThatTheReplicaLeadsOnPaperDoesNotMakeItLoop() {
        assertThat(Membership.leaderOf(Long.MAX_VALUE)).isEqualTo(31);
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 31, List.of(), 0);
        core.onTick(1, out);
        long before = core.view();
        out.clear();
        assertTimeoutPreemptively(NO_LOOP, () -> core.onMessage(0, new PaxosMessage.Heartbeat(Long.MAX_VALUE, 0), 2, out));
        assertThat(core.view()).as("a lying view is not adopted").isEqualTo(before);
        assertThat(out.sends()).isEmpty();
        assertThat(out.records()).isEmpty();
    }

    @Test
    void aFollowerThatSuspectsTheLeaderOfAViewNearLongMaxValueDoesNotLoop() {
        long lie = Long.MAX_VALUE - 31; // led by replica 0
        assertThat(Membership.leaderOf(lie)).isZero();
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 2, List.of(), 0);
        core.onTick(1, out);
        assertTimeoutPreemptively(NO_LOOP, () -> {
            core.onMessage(0, new PaxosMessage.Heartbeat(lie, 0), 2, out);
            core.onSuspect(core.view(), 3, out);
            core.onTick(CONFIG.suspectNanos() * 10, out);
        });
        assertThat(core.view()).as("views stay in range").isBetween(0L, Long.MAX_VALUE / 2);
    }

    /**
     * A PrepareOk reporting a vote at instance Long.MAX_VALUE would make the new leader's next
     * instance overflow to a negative number; the core ignores it and leads from instance 0.
     */
    @Test
    void aPhase1AnswerReportingAnInstanceNearLongMaxValueIsIgnored() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 0, List.of(), 0);
        core.onTick(1, out);
        core.onMessage(0, new PaxosMessage.PrepareOk(0, 0, List.of()), 2, out);
        core.onMessage(1, new PaxosMessage.PrepareOk(0, 0,
                List.of(new PaxosMessage.Accepted(Long.MAX_VALUE, 0, X))), 3, out);
        assertThat(core.isLeader()).as("the lying answer does not count").isFalse();
        core.onMessage(2, new PaxosMessage.PrepareOk(0, 0, List.of()), 4, out);
        assertThat(core.isLeader()).isTrue();
        out.clear();
        assertThat(core.onProposal(v("y"), 5, out)).isTrue();
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsOnly(new PaxosMessage.Propose(0, 0, v("y")));
    }

    /** A heartbeat claiming a negative first undecided instance would overflow knownDecided to Long.MAX_VALUE. */
    @Test
    void aHeartbeatWithANegativeInstanceSendsNoCatchUpQuery() {
        MultiPaxosCore core = new MultiPaxosCore(CONFIG, 1, List.of(), 0);
        core.onTick(1, out);
        core.onMessage(0, new PaxosMessage.Heartbeat(0, Long.MIN_VALUE), 2, out);
        out.clear();
        core.onTick(CONFIG.catchUpNanos() * 3, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .noneMatch(m -> m instanceof PaxosMessage.CatchUpQuery);
    }

    @Test
    void theEdgesOfTheValidRangesStillRoundTrip() {
        long v = WireBounds.MAX_VIEW;
        long i = WireBounds.MAX_INSTANCE;
        for (PaxosMessage m : List.of(
                new PaxosMessage.Prepare(v, i),
                new PaxosMessage.PrepareOk(v, i, List.of(new PaxosMessage.Accepted(i, v, X)), i),
                new PaxosMessage.PrepareOk(0, 0, List.of(new PaxosMessage.Accepted(0, 0, X))),
                new PaxosMessage.Propose(v, i, X),
                new PaxosMessage.Accept(0, 0),
                new PaxosMessage.Heartbeat(v, i),
                new PaxosMessage.CatchUpQuery(v, i, i),
                new PaxosMessage.CatchUpReply(v, i, List.of(new PaxosMessage.Decided(i, X))),
                new PaxosMessage.RecoveryQuery(v),
                new PaxosMessage.RecoveryReply(v, v, false, -1),
                new PaxosMessage.RecoveryReply(0, 0, true, i),
                new PaxosMessage.HeartbeatAck(v, i),
                new PaxosMessage.PreVote(v, i),
                new PaxosMessage.PreVoteReply(v, v, true),
                new PaxosMessage.StepDown(v))) {
            assertThat(roundTrip(m)).isEqualTo(m);
            assertThat(WireBounds.violation(m)).isNull();
        }
    }

    @Test
    void theNextViewALeaderStartsIsComputedAsTheOldLoopFoundIt() {
        for (int n = 1; n <= 7; n++) {
            PaxosConfig config = PaxosConfig.builder(n).build();
            for (int self = 0; self < Membership.ID_SPACE; self++) {
                for (long after = -1; after < 100; after++) {
                    long loop = after + 1;
                    while (Membership.leaderOf(loop) != self) {
                        loop++;
                    }
                    assertThat(ViewChanges.nextViewLedBy(config, self, after)).as("n=%d self=%d after=%d", n, self, after)
                            .isEqualTo(loop);
                }
            }
            assertThat(ViewChanges.nextViewLedBy(config, 0, WireBounds.MAX_VIEW))
                    .isGreaterThan(WireBounds.MAX_VIEW).isLessThanOrEqualTo(WireBounds.MAX_VIEW + Membership.ID_SPACE);
            assertThat(ViewChanges.nextViewLedBy(config, 0, Long.MAX_VALUE)).isEqualTo(-1);
        }
    }

    /**
     * At the top of the view space (2^62 - 1 is led by replica 31, 2^62 - 32 by replica 0) a follower that
     * suspects the leader does not start a view its peers would refuse: it stays a follower and
     * does not even ask for a pre-vote. One view lower, it asks, and with a peer's grant starts the
     * next view it leads as usual.
     */
    @Test
    void aFollowerAtTheTopOfTheViewSpaceStartsNoViewBeyondIt() {
        long top = WireBounds.MAX_VIEW;
        assertThat(Membership.leaderOf(top)).isEqualTo(31);
        MultiPaxosCore atTop = new MultiPaxosCore(CONFIG, 1, List.of(), 0);
        atTop.onTick(1, out);
        atTop.onMessage(0, new PaxosMessage.Heartbeat(top, 0), 2, out);
        assertThat(atTop.view()).isEqualTo(top);
        out.clear();
        long later = 2 + CONFIG.suspectNanos();
        atTop.onSuspect(top, later, out);
        assertThat(atTop.view()).isEqualTo(top);
        assertThat(atTop.isFollowing()).isTrue();
        assertThat(out.sends()).isEmpty();

        MultiPaxosCore below = new MultiPaxosCore(CONFIG, 1, List.of(), 0);
        below.onTick(1, out);
        long ledByZero = top - 31;
        below.onMessage(0, new PaxosMessage.Heartbeat(ledByZero, 0), 2, out);
        out.clear();
        below.onSuspect(ledByZero, later, out);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsOnly(new PaxosMessage.PreVote(ledByZero, 0));
        out.clear();
        below.onMessage(2, new PaxosMessage.PreVoteReply(ledByZero, ledByZero, true), later + 1, out);
        assertThat(below.view()).isEqualTo(ledByZero + 1);
        assertThat(out.sends()).extracting(EffectBuffer.Outgoing::message)
                .containsOnly(new PaxosMessage.Prepare(ledByZero + 1, 0));
    }
}
