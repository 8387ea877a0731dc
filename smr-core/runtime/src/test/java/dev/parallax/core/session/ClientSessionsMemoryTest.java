package dev.parallax.core.session;

import dev.parallax.core.CommandId;
import dev.parallax.core.CommandResult;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a session costs: the heap that 100,000 sessions of the default reply window (1,024) take.
 * Measured as the bytes the admitting thread allocates ({@code com.sun.management.ThreadMXBean}),
 * which bounds what the table retains from above (table resizes count too); no GC timing.
 */
class ClientSessionsMemoryTest {
    private static final int SESSIONS = 100_000;
    private static final int WINDOW = 1024;

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** Admits and answers {@code commands} commands in each of {@link #SESSIONS} sessions; returns the bytes allocated. */
    private static long allocatedFor(ClientSessions s, int commands) {
        CommandId[] ids = new CommandId[SESSIONS * commands];
        for (int c = 0; c < SESSIONS; c++) {
            for (int q = 0; q < commands; q++) {
                ids[c * commands + q] = new CommandId(c + 1, q + 1);
            }
        }
        CommandResult reply = CommandResult.ok(ByteBuffer.wrap(new byte[]{1})); // one shared reply: count the table only
        int refused = 0;
        long before = allocatedByThisThread();
        for (CommandId id : ids) {
            refused += s.admit(id) == ClientSessions.Verdict.EXECUTE ? 0 : 1;
            s.store(id, reply);
        }
        long bytes = allocatedByThisThread() - before;
        assertThat(refused).isZero();
        assertThat(s.size()).isEqualTo(SESSIONS);
        return bytes;
    }

    @Test
    void aHundredThousandSessionsFitInAModestHeap() {
        ClientSessions s = new ClientSessions(WINDOW, SESSIONS);
        long bytes = allocatedFor(s, 1);
        System.out.printf("ClientSessionsMemoryTest: %,d sessions of one command each: %,d bytes (%.1f MiB, %d bytes/session)%n",
                SESSIONS, bytes, bytes / 1048576.0, bytes / SESSIONS);
        // Preallocating 1,024 reply slots per session took about 1.2 GiB here; lazily about 16 MiB.
        assertThat(bytes).isLessThan(50L << 20);
        assertThat(s.cached(new CommandId(SESSIONS, 1)).reply().get(0)).isEqualTo((byte) 1);
    }

    @Test
    void aFewCommandsPerSessionStillCostLittle() {
        ClientSessions s = new ClientSessions(WINDOW, SESSIONS);
        long bytes = allocatedFor(s, 3);
        System.out.printf("ClientSessionsMemoryTest: %,d sessions of three commands each: %,d bytes (%.1f MiB)%n",
                SESSIONS, bytes, bytes / 1048576.0);
        assertThat(bytes).isLessThan(60L << 20);
        assertThat(s.cached(new CommandId(7, 2))).isNotNull();
        assertThat(s.cached(new CommandId(7, 1))).isNotNull();
    }
}
