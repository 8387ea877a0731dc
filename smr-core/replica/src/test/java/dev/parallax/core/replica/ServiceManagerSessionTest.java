package dev.parallax.core.replica;

import dev.parallax.core.session.ClientSessions;

import dev.parallax.core.Command;
import dev.parallax.core.CommandId;
import dev.parallax.core.StateMachine;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.wire.ClientWire;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retry path of a client whose session was evicted, through the ServiceManager: decided
 * batches in, state-machine executions and the replies on the client's connection out.
 */
class ServiceManagerSessionTest {

    /** Counts executions; replies with the count. */
    private static final class Counting implements StateMachine {
        int executed;

        @Override
        public ByteBuffer execute(ByteBuffer command) {
            executed++;
            return ByteBuffer.allocate(4).putInt(0, executed);
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
    private final Counting sm = new Counting();
    private final EmbeddedChannel client1 = new EmbeddedChannel();
    private long instance;

    @AfterEach
    void close() {
        client1.finishAndReleaseAll();
    }

    /** Two sessions at most, so a third client evicts the least recently used. */
    private ServiceManager manager() {
        ServiceManager m = new ServiceManager(new ClientSessions(4, 2), executor, router, registry, 0, sm, null,
                Long.MAX_VALUE, Long.MAX_VALUE);
        executor.start(sm, m);
        router.bind(1, client1);
        return m;
    }

    private void deliver(ServiceManager m, CommandId... ids) throws InterruptedException {
        List<Command> commands = new ArrayList<>();
        for (CommandId id : ids) {
            commands.add(new Command(id, ByteBuffer.allocate(8)));
        }
        m.deliver(instance++, CommandBatch.encode(commands));
    }

    /** The replies client 1 received so far. */
    private List<ClientWire.Reply> replies() {
        client1.runPendingTasks();
        List<ClientWire.Reply> out = new ArrayList<>();
        for (ByteBuf b = client1.readOutbound(); b != null; b = client1.readOutbound()) {
            while (b.isReadable()) {
                int length = b.readInt();
                b.readByte(); // version
                int type = b.readUnsignedByte();
                out.add(ClientWire.readReply(type, b.readSlice(length - 2)));
            }
            b.release();
        }
        return out;
    }

    /**
     * A client's first command lost in a fail-over while its second is decided
     * gets a gap report (resend from 1), not {@code SESSION_EXPIRED}, which ended the client.
     */
    @Test
    void aSecondCommandDecidedBeforeTheFirstAsksTheClientToResendFromOne() throws Exception {
        ServiceManager m = manager();
        deliver(m, new CommandId(1, 2));
        assertThat(sm.executed).isZero();
        List<ClientWire.Reply> r = replies();
        assertThat(r).extracting(ClientWire.Reply::status).containsExactly(ClientWire.RETRY_FROM);
        assertThat(r.get(0).next()).isEqualTo(1);
        deliver(m, new CommandId(1, 1), new CommandId(1, 2));
        assertThat(sm.executed).isEqualTo(2);
        assertThat(replies()).extracting(ClientWire.Reply::status).containsExactly(ClientWire.OK, ClientWire.OK);
    }

    @Test
    void aRetriedFirstCommandOfAnEvictedSessionIsAnsweredExpiredAndNotExecutedAgain() throws Exception {
        ServiceManager m = manager();
        deliver(m, new CommandId(1, 1));
        assertThat(sm.executed).isEqualTo(1);
        assertThat(replies()).extracting(ClientWire.Reply::status).containsExactly(ClientWire.OK);

        deliver(m, new CommandId(2, 1), new CommandId(3, 1)); // client 1's session is evicted
        assertThat(sm.executed).isEqualTo(3);

        // The reply was lost in a fail-over: client 1 resends its first command.
        deliver(m, new CommandId(1, 1));
        assertThat(sm.executed).as("the retry is not executed a second time").isEqualTo(3);
        List<ClientWire.Reply> r = replies();
        assertThat(r).extracting(ClientWire.Reply::status).containsExactly(ClientWire.SESSION_EXPIRED);
        assertThat(r.get(0).sequence()).isEqualTo(1);
        assertThat(r.get(0).message()).contains("expired");
    }

    @Test
    void aRetriedWindowOfAnEvictedSessionIsNeverExecutedAgain() throws Exception {
        ServiceManager m = manager();
        deliver(m, new CommandId(1, 1), new CommandId(1, 2), new CommandId(1, 3));
        assertThat(sm.executed).isEqualTo(3);
        replies();
        deliver(m, new CommandId(2, 1), new CommandId(3, 1));
        // go-back-N from 1, and then the next command
        deliver(m, new CommandId(1, 1), new CommandId(1, 2), new CommandId(1, 3), new CommandId(1, 4));
        assertThat(sm.executed).isEqualTo(5);
        assertThat(replies()).extracting(ClientWire.Reply::status).containsOnly(ClientWire.SESSION_EXPIRED).hasSize(4);
        assertThat(registry.get("parallax.commands.executed").counter().count()).isEqualTo(5.0);
    }
}
