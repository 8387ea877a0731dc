package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.session.ClientSessions;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client sessions are evicted as a deterministic function of the order every involved partition
 * delivers (SsmrCore's rule 12). Two partitions, one replica each, each admitting its delivered
 * commands through its own {@link ClientSessions} of {@value #LIMIT} sessions before its
 * {@link SsmrDriver} (as the replica's ServiceManager does), over a Multi-Ring merge: partition p
 * delivers its own ring (single-partition commands) interleaved with the global ring
 * (multi-partition commands, delivered to both).
 *
 * <p>The hazard: client ids are the clients' choice, so a flood of new ones on partition 0's own
 * ring fills partition 0's table alone. If that evicted the session of a multi-partition stream at
 * partition 0 only, the stream's next command would be refused as expired at partition 0 and run
 * at partition 1, which then waits for partition 0's values for ever (Alg. 1 l.20), blocking every
 * later command of partition 1.
 */
class SsmrSessionEvictionTest {
    private static final int LIMIT = 4;
    private static final long VICTIM = 1;
    private static final long RESEND = 10;

    /** One replica of a partition: admission through its session table, then the S-SMR driver. */
    private final class Partition {
        final int p;
        final ClientSessions sessions = new ClientSessions(8, LIMIT);
        final Registers machine = new Registers(2);
        final SsmrDriver driver;
        final List<ClientSessions.Verdict> verdicts = new ArrayList<>();

        Partition(int p) {
            this.p = p;
            this.driver = new SsmrDriver(SsmrConfig.of(p, 2).withResend(1024, 4096, RESEND), new SsmrStateMachine(machine),
                    new InMemoryRemoteValuesLog(), (q, m) -> inflight.add(new Object[]{q, m}), new SsmrDriver.Outcomes() {
                        @Override
                        public void replied(Command command, CommandResult result) {
                            sessions.store(command.id(), result);
                            replies.add(p + ":" + command.id());
                        }

                        @Override
                        public void skipped(Command command) {
                        }
                    });
        }

        void deliver(Command c) {
            ClientSessions.Verdict v = sessions.admit(c.id());
            if (c.groups().size() > 1) {
                verdicts.add(v);
            }
            if (v == ClientSessions.Verdict.EXECUTE) {
                driver.deliver(c);
            }
            pump();
        }
    }

    private final ArrayDeque<Object[]> inflight = new ArrayDeque<>();
    private final List<String> replies = new ArrayList<>();
    private final Partition[] parts = {new Partition(0), new Partition(1)};
    private long clock;

    private void pump() {
        while (!inflight.isEmpty()) {
            Object[] m = inflight.poll();
            parts[(int) m[0]].driver.receive((PartitionMessage) m[1]);
        }
    }

    /** A command of the global ring: delivered to both partitions, in the same place of their orders. */
    private void global(Command c) {
        parts[0].deliver(c);
        parts[1].deliver(c);
    }

    /** Time passes at both partitions: retransmission requests go out and are answered. */
    private void idleFor(int intervals) {
        for (int i = 0; i < intervals; i++) {
            clock += RESEND;
            for (Partition part : parts) {
                part.driver.tick(clock);
                pump();
            }
        }
    }

    private static Command multiWrite(long client, long seq, long x0, long x1) {
        return Registers.command(client, seq, Registers.multiWrite(new int[]{0, 1}, new long[]{x0, x1}));
    }

    @Test
    void aFloodOfNewClientsOnOnePartitionsRingDoesNotExpireAMultiPartitionSessionThere() {
        global(multiWrite(VICTIM, 1, 1, 1));
        // a flood of new client ids, each one command on partition 0's own ring only
        for (long client = 100; client < 100 + 2 * LIMIT; client++) {
            parts[0].deliver(Registers.command(client, 1, Registers.write(0, client)));
        }
        global(multiWrite(VICTIM, 2, 2, 2));
        idleFor(5);

        assertThat(parts[1].driver.core().idle()).as("partition 1 waits for partition 0's values of %s (head %s)",
                multiWrite(VICTIM, 2, 2, 2).id(), parts[1].driver.core().head()).isTrue();
        assertThat(parts[0].verdicts).as("partition 0's verdicts on the multi-partition stream")
                .isEqualTo(parts[1].verdicts);
        assertThat(parts[0].verdicts).containsOnly(ClientSessions.Verdict.EXECUTE);
        assertThat(parts[0].machine.value(0)).isEqualTo(2);
        assertThat(parts[1].machine.value(1)).isEqualTo(2);
    }

    @Test
    void aFloodOfNewClientsOnTheOtherPartitionsRingDoesNotExpireItThereEither() {
        global(multiWrite(VICTIM, 1, 1, 1));
        for (long client = 100; client < 100 + 2 * LIMIT; client++) {
            parts[1].deliver(Registers.command(client, 1, Registers.write(1, client)));
        }
        global(multiWrite(VICTIM, 2, 2, 2));
        // partition 0's next own command must not be stuck behind the multi-partition one
        parts[0].deliver(Registers.command(50, 1, Registers.write(0, 7)));
        idleFor(5);

        assertThat(parts[0].driver.core().idle()).as("partition 0 waits for partition 1 (head %s)",
                parts[0].driver.core().head()).isTrue();
        assertThat(parts[0].verdicts).isEqualTo(parts[1].verdicts);
        assertThat(parts[1].driver.core().idle()).isTrue();
        assertThat(parts[0].machine.value(0)).isEqualTo(7);
    }

    @Test
    void aFloodOfNewMultiPartitionClientsExpiresTheSessionAtEveryPartitionAlike() {
        global(multiWrite(VICTIM, 1, 1, 1));
        // single-partition traffic at partition 0 interleaved with a flood on the global ring
        for (long client = 100; client < 100 + 2 * LIMIT; client++) {
            parts[0].deliver(Registers.command(client + 1000, 1, Registers.write(0, client)));
            global(multiWrite(client, 1, client, client));
        }
        global(multiWrite(VICTIM, 2, 2, 2));
        idleFor(5);

        assertThat(parts[0].verdicts).isEqualTo(parts[1].verdicts);
        assertThat(parts[0].verdicts.get(parts[0].verdicts.size() - 1)).isEqualTo(ClientSessions.Verdict.EXPIRED);
        for (Partition part : parts) {
            assertThat(part.driver.core().idle()).as("partition %d (head %s)", part.p, part.driver.core().head()).isTrue();
        }
        assertThat(parts[0].machine.value(0)).isEqualTo(parts[1].machine.value(1)).isEqualTo(100 + 2 * LIMIT - 1);
        assertThat(replies).doesNotContain("0:" + multiWrite(VICTIM, 2, 2, 2).id(), "1:" + multiWrite(VICTIM, 2, 2, 2).id());
    }
}
