package dev.parallax.examples.kv;

import static dev.parallax.examples.kv.KvTesting.b;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parallax.core.client.ClusterUnavailableException;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.core.client.CommandRejectedException;
import dev.parallax.core.client.OutcomeUnknownException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RespConnectionHandlerTest {
    private final ManualInvoker invoker = new ManualInvoker();
    private HandlerFixture fixture = new HandlerFixture(invoker, 8);

    @AfterEach
    void close() {
        fixture.close();
    }

    private static ByteBuffer bulk(String value) {
        return new KvReply.Bulk(b(value)).encode();
    }

    @Test
    void repliesLeaveInRequestOrderWhateverOrderFuturesCompleteIn() {
        fixture.send("GET a\r\nPING\r\nGET b\r\nGET c\r\n");
        assertThat(invoker.commands).containsExactly(KvCommand.of(KvOp.GET, b("a")), KvCommand.of(KvOp.GET, b("b")),
                KvCommand.of(KvOp.GET, b("c")));
        assertThat(fixture.output()).isEmpty();
        invoker.future(2).complete(bulk("C"));
        invoker.future(1).complete(KvReply.NIL.encode());
        assertThat(fixture.output()).isEmpty();
        invoker.future(0).complete(bulk("A"));
        assertThat(fixture.output()).isEqualTo("$1\r\nA\r\n+PONG\r\n$-1\r\n$1\r\nC\r\n");
        assertThat(fixture.writes).isEqualTo(1);
    }

    @Test
    void completedHeadIsWrittenWhileLaterCommandsAreStillPending() {
        fixture.send("GET a\r\nGET b\r\n");
        invoker.future(0).complete(bulk("A"));
        assertThat(fixture.output()).isEqualTo("$1\r\nA\r\n");
        invoker.future(1).complete(bulk("B"));
        assertThat(fixture.output()).isEqualTo("$1\r\nB\r\n");
    }

    @Test
    void localRepliesAtTheHeadAreWrittenAtTheEndOfTheRead() {
        fixture.send("PING\r\nECHO hi\r\n");
        assertThat(fixture.output()).isEqualTo("+PONG\r\n$2\r\nhi\r\n");
        assertThat(fixture.writes).isEqualTo(1);
    }

    @Test
    void stopsReadingWithTooManyPendingCommandsAndResumesAtHalf() {
        fixture.close();
        fixture = new HandlerFixture(invoker, 4);
        fixture.send("GET a\r\nGET b\r\nGET c\r\n");
        assertThat(fixture.channel.config().isAutoRead()).isTrue();
        fixture.send("GET d\r\n");
        assertThat(fixture.channel.config().isAutoRead()).isFalse();
        invoker.future(0).complete(bulk("A"));
        fixture.output();
        assertThat(fixture.channel.config().isAutoRead()).isFalse();
        invoker.future(1).complete(bulk("B"));
        assertThat(fixture.output()).isEqualTo("$1\r\nB\r\n");
        assertThat(fixture.channel.config().isAutoRead()).isTrue();
    }

    @Test
    void stopsReadingWhileTheSocketIsNotWritable() {
        fixture.channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        fixture.channel.runPendingTasks();
        assertThat(fixture.channel.config().isAutoRead()).isFalse();
        fixture.channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        fixture.channel.runPendingTasks();
        assertThat(fixture.channel.config().isAutoRead()).isTrue();
    }

    @Test
    void rejectionsKeepTheStateMachinesRedisErrorText() {
        fixture.send("INCR k\r\nGET k\r\n");
        invoker.future(0).completeExceptionally(
                new CommandRejectedException("KvCommandException: ERR value is not an integer or out of range"));
        invoker.future(1).completeExceptionally(
                new CompletionException(new CommandRejectedException("IllegalArgumentException: malformed KV command: x")));
        assertThat(fixture.output()).isEqualTo(
                "-ERR value is not an integer or out of range\r\n-ERR malformed KV command: x\r\n");
        assertThat(fixture.count("parallax.kv.resp.command.failures", "kind", "rejected")).isEqualTo(2);
    }

    @Test
    void unavailableClusterAndOtherFailuresBecomeErrorReplies() {
        fixture.send("GET a\r\nGET b\r\nGET c\r\nGET d\r\n");
        invoker.future(0).completeExceptionally(new ClusterUnavailableException("no quorum\r\nin 5 s"));
        invoker.future(1).completeExceptionally(new IllegalStateException("invoker closed"));
        invoker.future(2).complete(null);
        invoker.future(3).complete(ByteBuffer.wrap(new byte[] {42}));
        assertThat(fixture.output()).isEqualTo("-CLUSTERDOWN no quorum  in 5 s\r\n-ERR internal error\r\n"
                + "-ERR internal error\r\n-ERR internal error\r\n");
        assertThat(fixture.count("parallax.kv.resp.command.failures", "kind", "internal")).isEqualTo(3);
    }

    @Test
    void anUnknownOutcomeIsNotReportedAsAFailure() {
        fixture.send("INCR n\r\nINCR n\r\n");
        invoker.future(0).completeExceptionally(new CompletionException(
                new OutcomeUnknownException("the command may or may not have executed: no reply\r\nin 1 s")));
        invoker.future(1).completeExceptionally(new ClusterUnavailableException("not sent; did not execute"));
        assertThat(fixture.output()).isEqualTo(
                "-ERR UNKNOWN outcome: the command may or may not have executed: no reply  in 1 s\r\n"
                        + "-CLUSTERDOWN not sent; did not execute\r\n");
        assertThat(fixture.count("parallax.kv.resp.command.failures", "kind", "unknown")).isEqualTo(1);
        assertThat(fixture.count("parallax.kv.resp.command.failures", "kind", "unavailable")).isEqualTo(1);
    }

    @Test
    void anInvokerThatThrowsGivesAnInternalError() {
        fixture.close();
        CommandInvoker throwing = command -> {
            throw new IllegalStateException("boom");
        };
        fixture = new HandlerFixture(throwing, 8);
        fixture.send("GET a\r\nPING\r\n");
        assertThat(fixture.output()).isEqualTo("-ERR internal error\r\n+PONG\r\n");
    }

    @Test
    void synchronouslyCompletedFuturesAreWrittenAtTheEndOfTheRead() {
        fixture.close();
        KvStateMachine sm = new KvStateMachine();
        fixture = new HandlerFixture(command -> CompletableFuture.completedFuture(sm.execute(command)), 8);
        fixture.send("SET k v\r\nGET k\r\n");
        ByteBuf written = fixture.channel.readOutbound();
        assertThat(written.toString(StandardCharsets.ISO_8859_1)).isEqualTo("+OK\r\n$1\r\nv\r\n");
        written.release();
        assertThat(fixture.output()).isEmpty();
    }

    @Test
    void quitRepliesOkAfterEarlierRepliesThenClosesAndIgnoresTheRest() {
        fixture.send("GET a\r\nQUIT\r\nPING\r\n");
        assertThat(fixture.channel.config().isAutoRead()).isFalse();
        invoker.future(0).complete(bulk("A"));
        assertThat(fixture.output()).isEqualTo("$1\r\nA\r\n+OK\r\n");
        assertThat(fixture.channel.isOpen()).isFalse();
    }

    @Test
    void protocolErrorIsRepliedAfterEarlierRepliesThenTheConnectionCloses() {
        fixture.send("GET a\r\n*1\r\n$x\r\nPING\r\n");
        assertThat(fixture.output()).isEmpty();
        assertThat(fixture.channel.isOpen()).isTrue();
        invoker.future(0).complete(bulk("A"));
        assertThat(fixture.output()).isEqualTo("$1\r\nA\r\n-ERR Protocol error: invalid bulk length\r\n");
        assertThat(fixture.channel.isOpen()).isFalse();
        assertThat(fixture.count("parallax.kv.resp.protocol.errors")).isEqualTo(1);
    }

    @Test
    void halfClosedConnectionGetsItsPendingRepliesThenCloses() {
        fixture.send("GET a\r\nPING\r\n");
        fixture.channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(fixture.channel.isOpen()).isTrue();
        invoker.future(0).complete(bulk("A"));
        assertThat(fixture.output()).isEqualTo("$1\r\nA\r\n+PONG\r\n");
        assertThat(fixture.channel.isOpen()).isFalse();
    }

    @Test
    void halfClosedConnectionWithNothingPendingClosesAtOnce() {
        fixture.send("PING\r\n");
        assertThat(fixture.output()).isEqualTo("+PONG\r\n");
        fixture.channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(fixture.channel.isOpen()).isFalse();
    }

    @Test
    void completionsAfterTheConnectionClosedAreDropped() {
        fixture.send("GET a\r\n");
        fixture.channel.close();
        invoker.future(0).complete(bulk("A"));
        assertThat(fixture.output()).isEmpty();
    }

    @Test
    void countsCommandsByNameAndUnknownOnesTogether() {
        fixture.send("PING\r\nping\r\nFOO\r\nBAR\r\n");
        fixture.output();
        assertThat(fixture.count("parallax.kv.resp.commands", "command", "ping")).isEqualTo(2);
        assertThat(fixture.count("parallax.kv.resp.commands", "command", "unknown")).isEqualTo(2);
    }
}
