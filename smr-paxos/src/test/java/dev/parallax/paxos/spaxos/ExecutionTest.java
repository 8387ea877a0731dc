package dev.parallax.paxos.spaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Execution of decided id lists (seed 002 (S-Paxos) §IV-A, Alg. 1 l.19–22, footnote 5). */
class ExecutionTest {
    private final Map<BatchId, ByteBuffer> held = new HashMap<>();
    private final List<BatchId> wanted = new ArrayList<>();
    private final List<String> executedAt = new ArrayList<>();
    private final List<Executable> emitted = new ArrayList<>();
    private final ExecutedIds executed = new ExecutedIds();
    private final Execution execution = new Execution();
    private final Execution.Bodies bodies = new Execution.Bodies() {
        @Override
        public ByteBuffer body(BatchId id) {
            return held.get(id);
        }

        @Override
        public void want(BatchId id) {
            wanted.add(id);
        }

        @Override
        public void executed(BatchId id, long instance) {
            executedAt.add(id + "@" + instance);
        }
    };

    private static BatchId id(int origin, long sn) {
        return new BatchId(origin, 1, sn);
    }

    private void hold(BatchId id) {
        held.put(id, ByteBuffer.wrap(new byte[] {(byte) id.sn()}));
    }

    private void pump() {
        execution.pump(executed, bodies, emitted::add);
    }

    @Test
    @DisplayName("seed 002 §IV-A, Alg. 1 l.19–22: execution waits for a missing body, asks once, and keeps instance order")
    void waitsForBodiesInInstanceOrder() {
        hold(id(0, 2));
        execution.add(0, List.of(id(0, 1)));
        execution.add(1, List.of(id(0, 2)));
        pump();
        pump();
        assertThat(emitted).isEmpty();
        assertThat(wanted).containsExactly(id(0, 1));
        assertThat(execution.waiting()).isEqualTo(2);
        assertThat(execution.queued(id(0, 2))).isTrue();
        hold(id(0, 1));
        pump();
        assertThat(emitted).extracting(Executable::instance).containsExactly(0L, 1L);
        assertThat(executedAt).containsExactly("0:1:1@0", "0:1:2@1");
        assertThat(execution.waiting()).isZero();
        assertThat(execution.queued(id(0, 2))).isFalse();
        assertThat(execution.waits()).isEqualTo(1);
    }

    @Test
    @DisplayName("seed 002 footnote 5: an id decided twice executes once; an instance with nothing new emits nothing")
    void duplicatesExecuteOnce() {
        hold(id(0, 1));
        hold(id(1, 1));
        execution.add(0, List.of(id(0, 1)));
        execution.add(1, List.of(id(0, 1), id(1, 1), id(1, 1)));
        execution.add(2, List.of(id(0, 1)));
        pump();
        assertThat(emitted).hasSize(2);
        assertThat(emitted.get(1).ids()).containsExactly(id(1, 1));
        assertThat(execution.duplicates()).isEqualTo(3);
        assertThat(execution.next()).isEqualTo(3);
        assertThat(executed.executed(id(1, 1))).isTrue();
    }

    @Test
    @DisplayName("an installed snapshot drops the instances below it, stale ones are ignored")
    void skipToDropsCoveredInstances() {
        execution.add(0, List.of(id(0, 1)));
        execution.add(1, List.of(id(0, 2)));
        hold(id(0, 2));
        execution.skipTo(1);
        execution.add(0, List.of(id(0, 9)));
        pump();
        assertThat(emitted).extracting(Executable::instance).containsExactly(1L);
        execution.skipTo(1);
        assertThat(execution.next()).isEqualTo(2);
    }
}
