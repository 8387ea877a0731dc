package dev.parallax.bench.systems.jgroupsraft;

import dev.parallax.bench.systems.framed.FramedServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.jgroups.raft.Options;
import org.jgroups.raft.Settable;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RaftFrontEndTest {

    /** A member whose outcomes the test completes by hand; the {@code refuse}-th submission throws. */
    private static final class ScriptedRaft implements Settable {
        final List<CompletableFuture<byte[]>> submitted = new ArrayList<>();
        int refuse = -1;

        @Override
        public CompletableFuture<byte[]> setAsync(byte[] buf, int offset, int length, Options options) {
            if (submitted.size() == refuse) {
                submitted.add(null);
                throw new IllegalStateException("not leader");
            }
            CompletableFuture<byte[]> f = new CompletableFuture<>();
            submitted.add(f);
            return f;
        }

        @Override
        public CompletableFuture<byte[]> getAsync(byte[] buf, int offset, int length, Options options) {
            throw new UnsupportedOperationException("the front end never reads");
        }
    }

    private static final class RecordingReplies implements FramedServer.Replies {
        final List<ByteBuffer> sent = new ArrayList<>();

        @Override
        public void reply(ByteBuf reply) {
            ByteBuffer copy = ByteBuffer.allocate(reply.readableBytes());
            reply.readBytes(copy);
            reply.release();
            sent.add(copy.flip());
        }

        @Override
        public ByteBuf allocate(int bytes) {
            return Unpooled.buffer(bytes);
        }
    }

    private static void send(RaftFrontEnd frontEnd, RecordingReplies replies, int tag) {
        ByteBuf command = Unpooled.buffer(4).writeInt(tag);
        frontEnd.onCommand(command, replies);
        command.release();
    }

    @Test
    void outcomesLeaveInCommandOrderWhateverOrderTheyCompleteIn() {
        ScriptedRaft raft = new ScriptedRaft();
        raft.refuse = 3;
        RaftFrontEnd frontEnd = new RaftFrontEnd(raft);
        RecordingReplies replies = new RecordingReplies();
        for (int tag = 0; tag < 4; tag++) {
            send(frontEnd, replies, tag);
        }
        assertThat(replies.sent).as("the refused 4th command waits for the three before it").isEmpty();

        raft.submitted.get(2).complete(new byte[] {2});
        raft.submitted.get(0).complete(new byte[] {0});
        assertThat(replies.sent).hasSize(1);
        raft.submitted.get(1).completeExceptionally(new IllegalStateException("leader changed"));

        assertThat(replies.sent).hasSize(4);
        assertThat(RaftReply.decode(replies.sent.get(0)).get()).isEqualTo((byte) 0);
        assertThatThrownBy(() -> RaftReply.decode(replies.sent.get(1)))
                .isInstanceOf(RaftCommandFailedException.class).hasMessageContaining("leader changed");
        assertThat(RaftReply.decode(replies.sent.get(2)).get()).isEqualTo((byte) 2);
        assertThatThrownBy(() -> RaftReply.decode(replies.sent.get(3)))
                .isInstanceOf(RaftCommandFailedException.class).hasMessageContaining("not leader");
    }

    @Test
    void theCounterStateMachineRepliesWithItsNewValueAndSnapshotsIt() throws Exception {
        CounterStateMachine sm = new CounterStateMachine();
        sm.apply(new byte[32], 0, 32, false);
        byte[] reply = sm.apply(new byte[32], 0, 32, true);
        assertThat(ByteBuffer.wrap(reply).getLong()).isEqualTo(2);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        sm.writeContentTo(new java.io.DataOutputStream(bytes));
        CounterStateMachine restored = new CounterStateMachine();
        restored.readContentFrom(new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray())));
        assertThat(restored.value()).isEqualTo(2);
    }
}
