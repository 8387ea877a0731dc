package dev.parallax.core.replica;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
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

    private static CommandId id(long c, long s) {
        return new CommandId(c, s);
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
        assertThat(s.admit(id(2, 5))).as("unknown client not starting at 1").isEqualTo(ClientSessions.Verdict.EXPIRED);
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
}
