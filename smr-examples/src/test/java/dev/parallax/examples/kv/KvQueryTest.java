package dev.parallax.examples.kv;

import static dev.parallax.examples.kv.KvTesting.b;
import static dev.parallax.examples.kv.KvTesting.run;
import static dev.parallax.examples.kv.KvTesting.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link KvStateMachine#query}: the read-only ops outside the order, answered exactly as {@code execute} answers them. */
class KvQueryTest {
    private final KvStateMachine sm = new KvStateMachine();

    private static final List<KvCommand> READS = List.of(
            KvCommand.of(KvOp.GET, b("a")),
            KvCommand.of(KvOp.GET, b("absent")),
            KvCommand.of(KvOp.EXISTS, b("a"), b("absent"), b("a")),
            KvCommand.of(KvOp.MGET, b("a"), b("absent"), b("n")),
            KvCommand.of(KvOp.DBSIZE),
            KvCommand.of(KvOp.STRLEN, b("a")),
            KvCommand.of(KvOp.STRLEN, b("n")),
            KvCommand.of(KvOp.STRLEN, b("absent")));

    private void fill() {
        run(sm, KvOp.MSET, "a", "hello", "b", "");
        run(sm, KvOp.INCR, "n");
    }

    @Test
    @DisplayName("every read-only op (GET, EXISTS, MGET, DBSIZE, STRLEN) is a query and answers what execute answers")
    void readOnlyOpsAnswerAsExecute() {
        fill();
        assertThat(READS.stream().map(KvCommand::op).distinct().toList()).as("every read-only op is covered")
                .containsExactlyInAnyOrder(Arrays.stream(KvOp.values()).filter(KvOp::isReadOnly).toArray(KvOp[]::new));
        for (KvCommand read : READS) {
            assertThat(KvReply.decode(sm.query(read.encode()))).as("%s", read)
                    .isEqualTo(KvReply.decode(sm.execute(read.encode())));
        }
        assertThat(KvReply.decode(sm.query(KvCommand.of(KvOp.STRLEN, b("a")).encode()))).isEqualTo(new KvReply.Int(5));
    }

    @Test
    @DisplayName("queries change nothing: the snapshot and the digest are those before them")
    void queriesChangeNothing() {
        fill();
        byte[] before = snapshot(sm);
        long digest = sm.digest();
        for (int i = 0; i < 3; i++) {
            READS.forEach(read -> sm.query(read.encode()));
        }
        assertThat(snapshot(sm)).isEqualTo(before);
        assertThat(sm.digest()).isEqualTo(digest);
    }

    @Test
    @DisplayName("a write is refused as a query (UnsupportedOperationException: the client orders it) and does not run")
    void writesAreRefusedAndDoNotRun() {
        fill();
        byte[] before = snapshot(sm);
        for (KvCommand write : List.of(KvCommand.of(KvOp.SET, b("a"), b("x")), KvCommand.of(KvOp.SET_IF_ABSENT, b("z"), b("x")),
                KvCommand.of(KvOp.SET_IF_PRESENT, b("a"), b("x")), KvCommand.of(KvOp.DEL, b("a")),
                KvCommand.of(KvOp.INCR, b("n")), KvCommand.of(KvOp.MSET, b("a"), b("x")), KvCommand.of(KvOp.FLUSHALL))) {
            assertThatThrownBy(() -> sm.query(write.encode())).as("%s", write)
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessage(write.op() + " changes the store: it is ordered");
        }
        assertThat(snapshot(sm)).isEqualTo(before);
    }

    @Test
    @DisplayName("malformed query bytes fail with the decoder's message, leave the buffer where it was and change nothing")
    void malformedQueriesAreRejected() {
        fill();
        byte[] before = snapshot(sm);
        for (byte[] garbage : List.of(new byte[0], new byte[] {99, 0, 0, 0, 0},
                new byte[] {KvOp.STRLEN.code(), 0, 0, 0, 0},
                new byte[] {KvOp.GET.code(), 0, 0, 0, 1, 0, 0, 0, 9, 'a'},
                new byte[] {KvOp.DBSIZE.code(), 0, 0, 0, 0, 7})) {
            ByteBuffer bytes = ByteBuffer.wrap(garbage);
            assertThatThrownBy(() -> sm.query(bytes)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed KV command: ");
            assertThat(bytes.position()).isZero();
        }
        assertThat(snapshot(sm)).isEqualTo(before);
    }

    @Test
    @DisplayName("a partitioned store (P-SMR) answers queries alike")
    void partitionedStoreAnswersAlike() {
        KvStateMachine partitioned = new KvStateMachine(4);
        for (KvStateMachine store : List.of(sm, partitioned)) {
            run(store, KvOp.MSET, "a", "hello", "b", "", "c", "xyz");
            run(store, KvOp.INCR, "n");
        }
        for (KvCommand read : READS) {
            assertThat(KvReply.decode(partitioned.query(read.encode()))).as("%s", read)
                    .isEqualTo(KvReply.decode(sm.query(read.encode())));
        }
    }
}
