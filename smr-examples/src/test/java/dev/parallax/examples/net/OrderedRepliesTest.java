package dev.parallax.examples.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The shared reply queue on an embedded channel: order, one flush per drain, back-pressure, last reply. */
class OrderedRepliesTest {
    private OrderedReplies<String> replies;

    private EmbeddedChannel channel(int maxPending) {
        return new EmbeddedChannel(new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                replies = new OrderedReplies<>(ctx, maxPending,
                        (out, outcome) -> out.writeCharSequence(outcome + ";", StandardCharsets.UTF_8));
            }
        });
    }

    private static String written(EmbeddedChannel ch) {
        StringBuilder all = new StringBuilder();
        ByteBuf buf;
        while ((buf = ch.readOutbound()) != null) {
            all.append(buf.toString(StandardCharsets.UTF_8)).append('|'); // one '|' per flush
            buf.release();
        }
        return all.toString();
    }

    @Test
    void outcomesCompletedInAnyOrderLeaveInRequestOrderOneFlushPerDrain() {
        EmbeddedChannel ch = channel(16);
        replies.beginRead();
        var a = replies.append();
        var b = replies.append();
        var c = replies.append();
        replies.endRead();
        c.complete("c");
        b.complete("b");
        ch.runPendingTasks();
        assertThat(written(ch)).as("nothing before a's reply").isEmpty();
        a.complete("a");
        ch.runPendingTasks();
        assertThat(written(ch)).isEqualTo("a;b;c;|");
        assertThat(replies.size()).isZero();
        // completions during a read batch wait for its end
        replies.beginRead();
        replies.append().complete("d");
        ch.runPendingTasks();
        assertThat(written(ch)).isEmpty();
        replies.endRead();
        assertThat(written(ch)).isEqualTo("d;|");
    }

    @Test
    void readingPausesAtTheBoundAndResumesAtHalf() {
        EmbeddedChannel ch = channel(4);
        var slots = new java.util.ArrayList<OrderedReplies<String>.Slot>();
        for (int i = 0; i < 4; i++) {
            slots.add(replies.append());
        }
        replies.updateReading();
        assertThat(ch.config().isAutoRead()).isFalse();
        slots.get(0).complete("0");
        ch.runPendingTasks();
        assertThat(ch.config().isAutoRead()).as("3 waiting, above half").isFalse();
        slots.get(1).complete("1");
        ch.runPendingTasks();
        assertThat(ch.config().isAutoRead()).as("2 waiting: half").isTrue();
        assertThat(written(ch)).isEqualTo("0;|1;|");
    }

    @Test
    void aLastReplyClosesTheConnectionOnceWrittenAndWhatFollowsIsDropped() {
        EmbeddedChannel ch = channel(16);
        var first = replies.append();
        var last = replies.append();
        replies.closeAfter(last);
        last.complete("bye");
        assertThat(replies.closing()).isTrue();
        assertThat(ch.config().isAutoRead()).isFalse();
        first.complete("first");
        ch.runPendingTasks();
        assertThat(written(ch)).isEqualTo("first;bye;|");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void anInputShutdownWithNothingWaitingClosesAtOnceAndAbandonDropsEverything() {
        EmbeddedChannel idle = channel(16);
        replies.closeAfterLast();
        assertThat(idle.isOpen()).isFalse();

        EmbeddedChannel ch = channel(16);
        var slot = replies.append();
        replies.abandon();
        slot.complete("late");
        ch.runPendingTasks();
        assertThat(written(ch)).isEmpty();
        assertThat(replies.size()).isZero();
        assertThat(ch.isOpen()).as("abandon leaves closing the channel to the caller").isTrue();
    }

    @Test
    void unwrapFindsTheCauseUnderCompletionWrappers() {
        IllegalStateException cause = new IllegalStateException("x");
        assertThat(Failures.unwrap(new CompletionException(new ExecutionException(cause)))).isSameAs(cause);
        assertThat(Failures.unwrap(cause)).isSameAs(cause);
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(Failures.unwrap(bare)).isSameAs(bare);
        assertThat(Failures.unwrap(null)).isNull();
        CompletableFuture<String> failed = CompletableFuture.<String>failedFuture(cause).thenApply(s -> s);
        assertThat(failed.handle((v, t) -> Failures.unwrap(t)).join()).isSameAs(cause);
    }
}
