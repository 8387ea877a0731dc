package dev.parallax.bench.systems.ratis;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

class CounterStateMachineTest {

    @Test
    void eachAppliedEntryIncrementsTheCounterAndRepliesWithItAsEightBytes() throws Exception {
        CounterStateMachine sm = new CounterStateMachine();
        for (long index = 1; index <= 3; index++) {
            Message reply = sm.applyTransaction(entry(sm, 2, index, "opaque command " + index)).get();
            assertThat(reply.getContent().size()).isEqualTo(Long.BYTES);
            assertThat(reply.getContent().asReadOnlyByteBuffer().getLong()).isEqualTo(index);
        }
        assertThat(sm.value()).isEqualTo(3);
        assertThat(sm.getLastAppliedTermIndex()).isEqualTo(TermIndex.valueOf(2, 3));
        ByteBuffer current = sm.query(Message.EMPTY).get().getContent().asReadOnlyByteBuffer();
        assertThat(current.getLong()).isEqualTo(3);
    }

    private static TransactionContext entry(CounterStateMachine sm, long term, long index, String data) {
        LogEntryProto entry = LogEntryProto.newBuilder().setTerm(term).setIndex(index)
                .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
                        .setLogData(ByteString.copyFromUtf8(data)).build())
                .build();
        return TransactionContext.newBuilder().setStateMachine(sm).setServerRole(RaftPeerRole.FOLLOWER)
                .setLogEntry(entry).build();
    }
}
