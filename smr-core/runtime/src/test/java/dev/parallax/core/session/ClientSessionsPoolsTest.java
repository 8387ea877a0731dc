package dev.parallax.core.session;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two eviction pools of {@link ClientSessions}: the sessions of streams of several groups are
 * evicted as a function of the admissions of such streams alone, so partitions that deliver the
 * same multi-group commands in the same order (the global ring of a partitioned deployment) and
 * different single-group commands (their own rings) give every multi-group command the same
 * verdict.
 */
class ClientSessionsPoolsTest {
    private static final GroupSet P0 = GroupSet.of(0);
    private static final GroupSet P1 = GroupSet.of(1);
    private static final GroupSet P01 = GroupSet.of(0, 1);

    private static CommandId id(long client, GroupSet groups, long seq) {
        return new CommandId(client, groups, seq);
    }

    @Test
    void aFloodOfNewSingleGroupSessionsNeverEvictsAMultiGroupSession() {
        ClientSessions s = new ClientSessions(4, 3);
        assertThat(s.admit(id(1, P01, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        for (long client = 100; client < 1100; client++) {
            assertThat(s.admit(id(client, P0, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        }
        assertThat(s.admit(id(1, P01, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.size()).isEqualTo(4);
        assertThat(s.multiGroupSize()).isEqualTo(1);
        assertThat(s.forgotten()).isEqualTo(1000 - 3);
    }

    @Test
    void aFloodOfNewMultiGroupSessionsNeverEvictsASingleGroupSession() {
        ClientSessions s = new ClientSessions(4, 3);
        s.admit(id(1, P0, 1));
        for (long client = 100; client < 1100; client++) {
            s.admit(id(client, P01, 1));
        }
        assertThat(s.admit(id(1, P0, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(100, P01, 2))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.admit(id(1099, P01, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }

    /**
     * Two partitions' tables over a random merged order: the same multi-group commands in the same
     * order (retries, pipelined gaps, new clients), each partition's own single-group commands
     * interleaved at random. Every multi-group command gets one verdict at both.
     */
    @Test
    void partitionsThatDeliverTheSameMultiGroupOrderGiveTheSameVerdicts() {
        for (long seed = 1; seed <= 50; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            ClientSessions[] tables = {new ClientSessions(4, 8), new ClientSessions(4, 8)};
            List<List<ClientSessions.Verdict>> verdicts = List.of(new ArrayList<>(), new ArrayList<>());
            long[] nextSingle = new long[64];
            long[] nextMulti = new long[64];
            java.util.Arrays.fill(nextSingle, 1);
            java.util.Arrays.fill(nextMulti, 1);
            for (int step = 0; step < 2_000; step++) {
                int p = rnd.nextInt(2);
                if (rnd.nextInt(3) > 0) { // a command on partition p's own ring only
                    int client = rnd.nextInt(64);
                    tables[p].admit(id(client, p == 0 ? P0 : P1, nextSingle[client]++));
                    continue;
                }
                int client = rnd.nextInt(64); // a command on the global ring: both admit it
                long seq = rnd.nextInt(8) == 0 ? Math.max(1, nextMulti[client] - 1) // a retry
                        : rnd.nextInt(8) == 0 ? nextMulti[client] + 1 // a gap
                        : nextMulti[client]++;
                CommandId c = id(client, P01, seq);
                for (int q = 0; q < 2; q++) {
                    verdicts.get(q).add(tables[q].admit(c));
                }
            }
            assertThat(verdicts.get(0)).as("seed %d", seed).isEqualTo(verdicts.get(1));
            assertThat(verdicts.get(0)).as("seed %d evicted some multi-group session", seed)
                    .contains(ClientSessions.Verdict.EXPIRED);
        }
    }

    /** A snapshot keeps each pool's recency: eviction after a restore matches the table that wrote it. */
    @Test
    void aSnapshotKeepsEachPoolsEvictionOrder() throws IOException {
        ClientSessions a = new ClientSessions(4, 2);
        a.admit(id(1, P01, 1));
        a.admit(id(1, P0, 1));
        a.admit(id(2, P01, 1));
        a.admit(id(2, P0, 1));
        a.admit(id(1, P01, 2)); // (2, P01) is now the least recently used multi-group session
        ClientSessions b = new ClientSessions(4, 2);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        a.writeTo(new DataOutputStream(bytes));
        b.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        for (ClientSessions s : new ClientSessions[]{a, b}) {
            assertThat(s.admit(id(3, P01, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE);
            assertThat(s.admit(id(2, P01, 2))).isEqualTo(ClientSessions.Verdict.EXPIRED);
            assertThat(s.admit(id(1, P01, 3))).isEqualTo(ClientSessions.Verdict.EXECUTE);
            assertThat(s.admit(id(1, P0, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
            assertThat(s.admit(id(2, P0, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        }
    }

    /**
     * A format-3 table written with one pool for both kinds (built by hand: sessions of both kinds
     * interleaved, least recently used first) restores into the two pools, each in its order.
     */
    @Test
    void aFormat3TableOfOnePoolRestoresIntoBothPoolsInOrder() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(-3);
        out.writeInt(4); // reply window
        long[][] sessions = {{1, P01.bits()}, {1, P0.bits()}, {2, P01.bits()}, {2, P0.bits()}};
        out.writeInt(sessions.length);
        for (long[] session : sessions) {
            out.writeLong(session[0]);
            out.writeLong(session[1]);
            out.writeLong(2); // next
            out.writeInt(0); // no replies kept
        }
        out.writeInt(0); // nothing forgotten
        out.flush();
        ClientSessions s = new ClientSessions(4, 2);
        s.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(s.size()).isEqualTo(4);
        assertThat(s.multiGroupSize()).isEqualTo(2);
        assertThat(s.admit(id(3, P01, 1))).isEqualTo(ClientSessions.Verdict.EXECUTE); // evicts (1, P01)
        assertThat(s.admit(id(1, P01, 2))).isEqualTo(ClientSessions.Verdict.EXPIRED);
        assertThat(s.admit(id(2, P01, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(1, P0, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
        assertThat(s.admit(id(2, P0, 2))).isEqualTo(ClientSessions.Verdict.EXECUTE);
    }
}
