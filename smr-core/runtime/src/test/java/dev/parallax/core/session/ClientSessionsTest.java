package dev.parallax.core.session;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientSessionsTest {

    private static final GroupSet A = GroupSet.of(1);
    private static final GroupSet B = GroupSet.of(2);
    private static final GroupSet AB = GroupSet.of(1, 2);

    private static CommandId id(long c, long s) {
        return new CommandId(c, s);
    }

    private static CommandId id(long c, GroupSet g, long s) {
        return new CommandId(c, g, s);
    }

    private static CommandResult ok(int b) {
        return CommandResult.ok(ByteBuffer.wrap(new byte[]{(byte) b}));
    }

    @Test
    void commandsExecuteOnceAndInOrderPerClient() {
        ClientSessions s = new ClientSessions(4, 10);
        assertThat(s.admit(id(1, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        s.store(id(1, 1), CommandResult.ok(ByteBuffer.wrap(new byte[]{1})));
        assertThat(s.admit(id(1, 1))).isEqualTo(ClientSessions.Verdict.DUPLICATE);
        assertThat(s.cached(id(1, 1)).reply().get()).isEqualTo((byte) 1);
        assertThat(s.admit(id(1, 3))).as("a gap: 2 is missing").isEqualTo(ClientSessions.Verdict.GAP);
        assertThat(s.next(1)).isEqualTo(2);
        assertThat(s.admit(id(1, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(2, 5))).as("unknown client not starting at 1: its first commands are missing")
                .isEqualTo(ClientSessions.Verdict.GAP);
    }

    /**
     * Found by the Multi-Paxos simulation with clients that time out (seed 14 of
     * {@code MultiPaxosSimulationTest.threeReplicas}): a client's first command is lost with a
     * deposed leader while its second one is decided. That is a gap before the session's first
     * command, not an expired session: answering {@code SESSION_EXPIRED} broke the client for good.
     */
    @Test
    void aSecondCommandDecidedBeforeTheFirstIsAGapNotAnExpiredSession() {
        ClientSessions s = new ClientSessions(4, 10);
        assertThat(s.admit(id(7, 2))).isEqualTo(ClientSessions.Verdict.GAP);
        assertThat(s.admit(id(7, 3))).isEqualTo(ClientSessions.Verdict.GAP);
        assertThat(s.next(7)).as("the client resends from 1").isEqualTo(1);
        assertThat(s.size()).as("a gap creates no session").isZero();
        assertThat(s.admit(id(7, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(7, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(7, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }

    @Test
    void repliesAgeOutOfTheWindow() {
        ClientSessions s = new ClientSessions(2, 10);
        for (long q = 1; q <= 3; q++) {
            s.admit(id(1, q));
            s.store(id(1, q), CommandResult.error("e" + q));
        }
        assertThat(s.cached(id(1, 1))).isNull();
        assertThat(s.cached(id(1, 3)).error()).isEqualTo("e3");
    }

    @Test
    void leastRecentlyUsedSessionsAreEvictedBeyondTheLimit() {
        ClientSessions s = new ClientSessions(2, 2);
        s.admit(id(1, 1));
        s.admit(id(2, 1));
        s.admit(id(1, 2));
        s.admit(id(3, 1));
        assertThat(s.size()).isEqualTo(2);
        assertThat(s.admit(id(2, 2))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.admit(id(1, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }

    @Test
    void aSnapshotRestoresSessionsRepliesAndEvictionOrder() throws IOException {
        ClientSessions a = new ClientSessions(4, 3);
        for (long c = 1; c <= 3; c++) {
            for (long q = 1; q <= 5; q++) {
                a.admit(id(c, q));
                a.store(id(c, q), q % 2 == 0 ? CommandResult.error("bad " + q)
                        : CommandResult.ok(ByteBuffer.wrap(new byte[]{(byte) q})));
            }
        }
        a.admit(id(1, 6));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        a.writeTo(new DataOutputStream(bytes));
        ClientSessions b = new ClientSessions(4, 3);
        b.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(b.next(1)).isEqualTo(7);
        assertThat(b.next(2)).isEqualTo(6);
        assertThat(b.cached(id(2, 4)).error()).isEqualTo("bad 4");
        assertThat(b.cached(id(3, 5)).reply().get()).isEqualTo((byte) 5);
        // The same eviction decision on both: client 2 is the least recently used.
        a.admit(id(4, 1));
        b.admit(id(4, 1));
        assertThat(a.admit(id(2, 6))).isEqualTo(b.admit(id(2, 6))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThatThrownBy(() -> new ClientSessions(8, 3).readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))))
                .hasMessageContaining("reply window");
    }

    @Test
    void interleavedStreamsOfOneClientNeverLookLikeGaps() {
        ClientSessions s = new ClientSessions(4, 10);
        // One client, three streams, each numbered from 1, delivered interleaved in any order
        // that keeps each stream's own order.
        CommandId[] delivered = {id(1, A, 1), id(1, 1), id(1, B, 1), id(1, A, 2), id(1, AB, 1), id(1, B, 2),
            id(1, 2), id(1, A, 3), id(1, AB, 2)};
        for (CommandId c : delivered) {
            assertThat(s.admit(c)).as("%s", c).isEqualTo(ClientSessions.Verdict.EXECUTE);
        }
        assertThat(s.next(1)).isEqualTo(3);
        assertThat(s.next(1, GroupSet.DEFAULT)).isEqualTo(3);
        assertThat(s.next(1, A)).isEqualTo(4);
        assertThat(s.next(1, B)).isEqualTo(3);
        assertThat(s.next(1, AB)).isEqualTo(3);
        assertThat(s.next(1, GroupSet.of(7))).isEqualTo(1);
        assertThat(s.size()).as("one session per (client, stream)").isEqualTo(4);
    }

    @Test
    void duplicatesAreAnsweredFromTheirOwnStreamsCache() {
        ClientSessions s = new ClientSessions(4, 10);
        s.admit(id(1, A, 1));
        s.store(id(1, A, 1), ok(10));
        s.admit(id(1, B, 1));
        s.store(id(1, B, 1), ok(20));
        s.admit(id(1, 1));
        s.store(id(1, 1), ok(30));
        assertThat(s.admit(id(1, B, 1))).isEqualTo(ClientSessions.Verdict.DUPLICATE);
        assertThat(s.cached(id(1, B, 1)).reply().get()).isEqualTo((byte) 20);
        assertThat(s.admit(id(1, A, 1))).isEqualTo(ClientSessions.Verdict.DUPLICATE);
        assertThat(s.cached(id(1, A, 1)).reply().get()).isEqualTo((byte) 10);
        assertThat(s.cached(id(1, 1)).reply().get()).isEqualTo((byte) 30);
        assertThat(s.cached(id(1, AB, 1))).as("never in that stream").isNull();
        assertThat(s.cached(id(2, A, 1))).as("another client's stream").isNull();
    }

    @Test
    void aRealGapWithinOneStreamIsStillAGapAndOnlyThatStreamWaits() {
        ClientSessions s = new ClientSessions(4, 10);
        assertThat(s.admit(id(1, A, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, A, 3))).as("A:2 was lost").isEqualTo(ClientSessions.Verdict.GAP);
        assertThat(s.next(1, A)).isEqualTo(2);
        assertThat(s.admit(id(1, B, 1))).as("B is unaffected").isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, B, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, A, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, A, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, B, 4))).isEqualTo(ClientSessions.Verdict.GAP);
        assertThat(s.next(1, B)).isEqualTo(3);
    }

    @Test
    void theSessionLimitCountsClientStreamPairs() {
        ClientSessions s = new ClientSessions(2, 2);
        s.admit(id(1, A, 1));
        s.admit(id(1, B, 1));
        s.admit(id(1, A, 2));
        s.admit(id(1, 1)); // a third single-group session of client 1 evicts its least recently used, (1, B)
        assertThat(s.size()).isEqualTo(2);
        assertThat(s.admit(id(1, B, 2))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.admit(id(1, A, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        s.admit(id(1, AB, 1)); // a multi-group stream is counted in its own pool: nothing evicted
        assertThat(s.size()).isEqualTo(3);
        assertThat(s.admit(id(1, A, 4))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }

    @Test
    void aSnapshotKeepsEachStreamsSession() throws IOException {
        ClientSessions a = new ClientSessions(4, 10);
        a.admit(id(5, A, 1));
        a.store(id(5, A, 1), ok(1));
        a.admit(id(5, 1));
        a.admit(id(5, 2));
        a.store(id(5, 2), CommandResult.error("nope"));
        a.admit(id(5, B, 1));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        a.writeTo(new DataOutputStream(bytes));
        ClientSessions b = new ClientSessions(4, 10);
        b.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(b.size()).isEqualTo(3);
        assertThat(b.next(5, A)).isEqualTo(2);
        assertThat(b.next(5)).isEqualTo(3);
        assertThat(b.next(5, B)).isEqualTo(2);
        assertThat(b.cached(id(5, A, 1)).reply().get()).isEqualTo((byte) 1);
        assertThat(b.cached(id(5, 2)).error()).isEqualTo("nope");
        assertThat(b.admit(id(5, A, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }

    /**
     * The session table as replicas wrote it before commands carried destinations (format 1, built
     * by hand: window, count, then per session client, next, kept replies) restores as default-group
     * sessions, in the same eviction order.
     */
    @Test
    void anOldFormatSnapshotRestoresAsDefaultGroupSessions() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(4); // reply window
        out.writeInt(2); // sessions, least recently used first
        out.writeLong(11);
        out.writeLong(3); // next
        out.writeInt(2);
        out.writeLong(1);
        out.writeBoolean(false);
        out.writeInt(1);
        out.write(7);
        out.writeLong(2);
        out.writeBoolean(true);
        out.writeUTF("bad");
        out.writeLong(12);
        out.writeLong(6);
        out.writeInt(0);
        out.flush();

        ClientSessions s = new ClientSessions(4, 2);
        s.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(s.size()).isEqualTo(2);
        assertThat(s.next(11)).isEqualTo(3);
        assertThat(s.next(12, GroupSet.DEFAULT)).isEqualTo(6);
        assertThat(s.cached(id(11, 1)).reply().get()).isEqualTo((byte) 7);
        assertThat(s.cached(id(11, 2)).error()).isEqualTo("bad");
        assertThat(s.admit(id(11, 2))).isEqualTo(ClientSessions.Verdict.DUPLICATE);
        assertThat(s.admit(id(12, 6))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(11, A, 1))).as("a new stream of an old client starts at 1").isEqualTo(ClientSessions.Verdict.EXECUTE);
        // A third session: the least recently used one, client 11's default session, is evicted.
        assertThat(s.admit(id(11, 3))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.admit(id(12, 7))).isEqualTo(ClientSessions.Verdict.EXECUTE);

        // Written again, it is format 3 and reads back the same.
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        s.writeTo(new DataOutputStream(again));
        assertThat(new DataInputStream(new ByteArrayInputStream(again.toByteArray())).readInt()).isEqualTo(-3);
        ClientSessions t = new ClientSessions(4, 2);
        t.readFrom(new DataInputStream(new ByteArrayInputStream(again.toByteArray())));
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.next(11, A)).isEqualTo(2);
        assertThat(t.next(12)).isEqualTo(8);
    }

    @Test
    void anUnknownFormatOrAnEmptyGroupSetIsRefused() throws IOException {
        ByteArrayOutputStream unknown = new ByteArrayOutputStream();
        new DataOutputStream(unknown).writeInt(-7);
        assertThatThrownBy(() -> new ClientSessions(4, 2).readFrom(new DataInputStream(new ByteArrayInputStream(unknown.toByteArray()))))
                .isInstanceOf(IOException.class).hasMessageContaining("unknown client session table format");
        ByteArrayOutputStream empty = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(empty);
        out.writeInt(-2);
        out.writeInt(4);
        out.writeInt(1);
        out.writeLong(1);
        out.writeLong(0);
        out.flush();
        assertThatThrownBy(() -> new ClientSessions(4, 2).readFrom(new DataInputStream(new ByteArrayInputStream(empty.toByteArray()))))
                .isInstanceOf(IOException.class).hasMessageContaining("empty group set");
    }
    /**
     * A session evicted after its first command executed must not take a retry of that command
     * for a new session: sequence 1 of a forgotten (client, stream) is expired, not executed again.
     */
    @Test
    void aRetryOfTheFirstCommandOfAnEvictedSessionIsNotExecutedAgain() {
        ClientSessions s = new ClientSessions(4, 2);
        assertThat(s.admit(id(1, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        s.admit(id(2, 1));
        s.admit(id(3, 1)); // evicts client 1
        assertThat(s.admit(id(1, 1))).as("the retry of an executed command").isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.admit(id(1, 2))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.size()).as("the refused retry created no session").isEqualTo(2);
        assertThat(s.admit(id(4, 1))).as("a new client still starts").isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, A, 1))).as("a new stream of the evicted client still starts").isEqualTo(ClientSessions.Verdict.EXECUTE);
    }

    @Test
    void everyRetryOfAnEvictedPipelinedSessionIsExpired() {
        ClientSessions s = new ClientSessions(8, 1);
        for (long q = 1; q <= 5; q++) {
            assertThat(s.admit(id(1, q))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        }
        s.admit(id(2, 1)); // evicts client 1
        // go-back-N resends 1..6 of client 1, as after a fail-over that lost the replies
        for (long q = 1; q <= 6; q++) {
            assertThat(s.admit(id(1, q))).as("seq %d", q).isEqualTo(ClientSessions.Verdict.EXPIRED);
        }
        assertThat(s.next(1)).isEqualTo(1);
    }

    @Test
    void theForgottenSessionsSurviveASnapshotSoEvictionVerdictsMatch() throws IOException {
        ClientSessions a = new ClientSessions(4, 2);
        a.admit(id(1, 1));
        a.admit(id(1, A, 1));
        a.admit(id(2, 1)); // evicts (1, default)
        a.admit(id(3, B, 1)); // evicts (1, A)
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        a.writeTo(new DataOutputStream(bytes));
        ClientSessions b = new ClientSessions(4, 2);
        b.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(b.forgotten()).isEqualTo(a.forgotten()).isEqualTo(2);
        for (ClientSessions s : new ClientSessions[]{a, b}) {
            assertThat(s.admit(id(1, 1))).isEqualTo(ClientSessions.Verdict.EXPIRED);
            assertThat(s.admit(id(1, A, 1))).isEqualTo(ClientSessions.Verdict.EXPIRED);
            assertThat(s.admit(id(1, B, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        }
    }

    @Test
    void aPipelinedSessionKeepsTheRepliesOfItsWholeWindowWhateverTheStoreOrder() {
        ClientSessions s = new ClientSessions(16, 4);
        for (long q = 1; q <= 40; q++) {
            assertThat(s.admit(id(1, q))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        }
        // A parallel executor finishes out of order: store 40 down to 1.
        for (long q = 40; q >= 1; q--) {
            s.store(id(1, q), ok((int) q));
        }
        for (long q = 25; q <= 40; q++) {
            assertThat(s.cached(id(1, q))).as("seq %d is in the window", q).isNotNull();
            assertThat(s.cached(id(1, q)).reply().get(0)).isEqualTo((byte) q);
        }
        for (long q = 1; q <= 24; q++) {
            assertThat(s.cached(id(1, q))).as("seq %d aged out", q).isNull();
        }
    }

    @Test
    void aSessionGrowsItsReplyRingOnlyAsFarAsItsRepliesNeed() {
        ClientSessions s = new ClientSessions(1024, 4);
        s.admit(id(1, 1));
        s.store(id(1, 1), ok(1));
        assertThat(s.replySlots(id(1, 1))).as("one reply, one slot").isEqualTo(1);
        for (long q = 2; q <= 5; q++) {
            s.admit(id(1, q));
            s.store(id(1, q), ok((int) q));
        }
        assertThat(s.replySlots(id(1, 1))).isEqualTo(8);
        for (long q = 1; q <= 5; q++) {
            assertThat(s.cached(id(1, q)).reply().get(0)).isEqualTo((byte) q);
        }
        s.admit(id(2, 1));
        assertThat(s.replySlots(id(2, 1))).as("nothing stored yet: no slots").isZero();
        for (long q = 6; q <= 3000; q++) {
            s.admit(id(1, q));
            s.store(id(1, q), ok((int) q));
        }
        assertThat(s.replySlots(id(1, 1))).as("never beyond the window").isEqualTo(1024);
        assertThat(s.cached(id(1, 3000 - 1023))).isNotNull();
        assertThat(s.cached(id(1, 3000 - 1024))).isNull();
    }

    /** A format-2 snapshot (built by hand, as the previous version wrote it) still reads, with nothing forgotten. */
    @Test
    void aFormat2SnapshotStillReads() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(-2);
        out.writeInt(4); // reply window
        out.writeInt(1); // sessions
        out.writeLong(21);
        out.writeLong(A.bits());
        out.writeLong(3); // next
        out.writeInt(1);
        out.writeLong(2);
        out.writeBoolean(false);
        out.writeInt(1);
        out.write(9);
        out.flush();
        ClientSessions s = new ClientSessions(4, 2);
        s.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(s.size()).isEqualTo(1);
        assertThat(s.forgotten()).isZero();
        assertThat(s.next(21, A)).isEqualTo(3);
        assertThat(s.cached(id(21, A, 2)).reply().get(0)).isEqualTo((byte) 9);
        assertThat(s.admit(id(21, A, 2))).isEqualTo(ClientSessions.Verdict.DUPLICATE);
        assertThat(s.admit(id(21, A, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }
}
