package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.SpeculativeStateMachine;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.session.ClientSessions;
import dev.parallax.core.wire.ClientWire;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Speculative execution through the ServiceManager (seed 003 (Marandi thesis) §4.2.1): a state
 * machine that opts in runs a command on its tentative position and the client hears nothing until
 * the decision; a rollback restores the state and the decided order runs instead; queries and
 * snapshots see decided state only; a state machine that does not opt in is untouched by
 * tentatives.
 */
class ServiceManagerSpeculationTest {

    /** An appending log: each command appends its first byte; the reply is the log's length. */
    private static class Appender implements SpeculativeStateMachine {
        final StringBuilder log = new StringBuilder();
        int executed;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            executed++;
            log.append((char) command.get(command.position()));
            return ByteBuffer.allocate(4).putInt(0, log.length());
        }

        @Override
        public Execution executeSpeculatively(ByteBuffer command) {
            ByteBuffer reply = execute(command);
            int before = log.length() - 1;
            return new Execution(reply, () -> log.setLength(before));
        }

        @Override
        public ByteBuffer query(ByteBuffer query) {
            return ByteBuffer.wrap(log.toString().getBytes());
        }

        @Override
        public void snapshot(WritableByteChannel out) {
        }

        @Override
        public void restore(ReadableByteChannel in) {
        }
    }

    /** The same without opting in. */
    private static final class Plain implements StateMachine {
        int executed;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            executed++;
            return ByteBuffer.allocate(0);
        }

        @Override
        public void snapshot(WritableByteChannel out) {
        }

        @Override
        public void restore(ReadableByteChannel in) {
        }
    }

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final SequentialExecutor executor = new SequentialExecutor();
    private final ReplyRouter router = new ReplyRouter();
    private final EmbeddedChannel client1 = new EmbeddedChannel();

    @AfterEach
    void close() {
        client1.finishAndReleaseAll();
    }

    private ServiceManager manager(StateMachine sm, int maxSessions) {
        ServiceManager m = new ServiceManager(new ClientSessions(4, maxSessions), executor, router, registry, 0, sm, null,
                Long.MAX_VALUE, Long.MAX_VALUE);
        executor.start(sm, m);
        router.bind(1, client1);
        return m;
    }

    private static ByteBuffer batch(char payload, CommandId... ids) {
        List<Command> commands = new ArrayList<>();
        for (CommandId id : ids) {
            commands.add(new Command(id, ByteBuffer.wrap(new byte[] {(byte) payload})));
        }
        return CommandBatch.encode(commands);
    }

    private List<ClientWire.Reply> replies() {
        client1.runPendingTasks();
        List<ClientWire.Reply> out = new ArrayList<>();
        for (ByteBuf b = client1.readOutbound(); b != null; b = client1.readOutbound()) {
            while (b.isReadable()) {
                int length = b.readInt();
                b.readByte();
                int type = b.readUnsignedByte();
                out.add(ClientWire.readReply(type, b.readSlice(length - 2)));
            }
            b.release();
        }
        return out;
    }

    private double counter(String name) {
        return registry.get(name).functionCounter().count();
    }

    @Test
    @DisplayName("S1/S2: executed on its tentative position, answered only once decided, the speculative run kept")
    void executesEarlyRepliesOnDecide() throws Exception {
        Appender sm = new Appender();
        ServiceManager m = manager(sm, 16);
        m.tentative(0, batch('a', new CommandId(1, 1)));
        assertThat(sm.log).hasToString("a");
        assertThat(replies()).as("no reply before the decision").isEmpty();
        m.deliver(0, batch('a', new CommandId(1, 1)));
        assertThat(replies()).extracting(ClientWire.Reply::status).containsExactly(ClientWire.OK);
        assertThat(sm.executed).as("not executed a second time").isEqualTo(1);
        assertThat(counter("parallax.speculation.executed")).isEqualTo(1);
        assertThat(counter("parallax.speculation.confirmed")).isEqualTo(1);
    }

    @Test
    @DisplayName("S3/S4: a coordinator change undoes the speculated command; the decided order runs; one reply")
    void rollbackOnRevokeThenDecidedOrder() throws Exception {
        Appender sm = new Appender();
        ServiceManager m = manager(sm, 16);
        m.tentative(0, batch('a', new CommandId(1, 1)));
        m.tentative(1, batch('b', new CommandId(1, 2)));
        assertThat(sm.log).hasToString("ab");
        m.revoked(0);
        assertThat(sm.log).as("rolled back past the first undecided position").hasToString("");
        m.deliver(0, batch('b', new CommandId(1, 1)));
        m.deliver(1, batch('a', new CommandId(1, 2)));
        assertThat(sm.log).hasToString("ba");
        assertThat(replies()).hasSize(2);
        assertThat(counter("parallax.speculation.rolledback")).isEqualTo(2);
    }

    @Test
    @DisplayName("a session verdict that changed before the decision (the session was evicted) undoes and goes plain")
    void guessedVerdictThatDoesNotHold() throws Exception {
        Appender sm = new Appender();
        ServiceManager m = manager(sm, 1);   // one session: client 2's first command evicts client 1's
        m.deliver(0, batch('a', new CommandId(1, 1)));
        m.tentative(1, batch('x', new CommandId(2, 1)));
        m.tentative(2, batch('b', new CommandId(1, 2)));   // guessed EXECUTE on the table before the eviction
        assertThat(sm.log).hasToString("axb");
        m.deliver(1, batch('x', new CommandId(2, 1)));
        m.deliver(2, batch('b', new CommandId(1, 2)));
        assertThat(sm.log).as("client 1's session expired: its command is undone, not executed").hasToString("ax");
        assertThat(replies()).extracting(ClientWire.Reply::status)
                .containsExactly(ClientWire.OK, ClientWire.SESSION_EXPIRED);
    }

    @Test
    @DisplayName("S6: a query sees decided state only, and the speculation goes on after it")
    void queriesSeeDecidedState() throws Exception {
        Appender sm = new Appender();
        ServiceManager m = manager(sm, 16);
        m.deliver(0, batch('a', new CommandId(1, 1)));
        m.tentative(1, batch('b', new CommandId(1, 2)));
        List<Object> answers = new ArrayList<>();
        m.query(List.of(ByteBuffer.allocate(1)), answers::add);
        ByteBuffer answer = (ByteBuffer) answers.get(0);
        assertThat(new String(answer.array())).isEqualTo("a");
        assertThat(sm.log).as("re-executed after the query").hasToString("ab");
    }

    @Test
    @DisplayName("bad input: a tentative that is no command batch runs nothing; its decision is counted malformed, as without speculation")
    void malformedTentative() throws Exception {
        Appender sm = new Appender();
        ServiceManager m = manager(sm, 16);
        ByteBuffer garbage = ByteBuffer.wrap(new byte[] {0x7f, 1, 2});
        m.tentative(0, garbage.duplicate());
        m.tentative(1, batch('b', new CommandId(1, 1)));
        assertThat(sm.log).hasToString("b");
        m.deliver(0, garbage.duplicate());
        m.deliver(1, batch('b', new CommandId(1, 1)));
        assertThat(registry.get("parallax.batches.malformed").counter().count()).isEqualTo(1);
        assertThat(sm.log).hasToString("b");
        assertThat(replies()).extracting(ClientWire.Reply::status).containsExactly(ClientWire.OK);
    }

    @Test
    @DisplayName("an undo that throws breaks the contract: the replica stops (fail-stop), it does not go on diverged")
    void throwingUndoStopsTheReplica() throws Exception {
        Appender sm = new Appender() {
            @Override
            public Execution executeSpeculatively(ByteBuffer command) {
                Execution e = super.executeSpeculatively(command);
                return new Execution(e.reply(), () -> {
                    throw new IllegalStateException("undo failed");
                });
            }
        };
        ServiceManager m = manager(sm, 16);
        m.tentative(0, batch('a', new CommandId(1, 1)));
        m.revoked(0);
        assertThat(m.failure()).isInstanceOf(IllegalStateException.class).hasMessage("undo failed");
        m.deliver(0, batch('a', new CommandId(1, 1)));
        assertThat(replies()).as("nothing answered after the stop").isEmpty();
    }

    @Test
    @DisplayName("a state machine that does not opt in ignores tentatives: executed only when decided")
    void plainStateMachineUnchanged() throws Exception {
        Plain sm = new Plain();
        ServiceManager m = manager(sm, 16);
        m.tentative(0, batch('a', new CommandId(1, 1)));
        m.revoked(0);
        assertThat(sm.executed).isZero();
        m.deliver(0, batch('a', new CommandId(1, 1)));
        assertThat(sm.executed).isEqualTo(1);
        assertThat(registry.find("parallax.speculation.executed").functionCounter()).isNull();
    }
}
