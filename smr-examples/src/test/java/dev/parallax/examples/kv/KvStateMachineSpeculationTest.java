package dev.parallax.examples.kv;

import static dev.parallax.examples.kv.KvTesting.run;
import static dev.parallax.examples.kv.KvTesting.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.SpeculativeStateMachine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The KV store's speculative execution (seed 003 (Marandi thesis) §4.2.1, the
 * {@link SpeculativeStateMachine} contract): the same replies as {@link KvStateMachine#execute}, and
 * undos, run last first, that restore the exact state (contents, digest, snapshot bytes).
 */
class KvStateMachineSpeculationTest {

    private static SpeculativeStateMachine.Execution speculate(KvStateMachine sm, KvOp op, String... args) {
        byte[][] a = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            a[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return sm.executeSpeculatively(KvCommand.of(op, a).encode());
    }

    private static KvStateMachine seeded() {
        KvStateMachine sm = new KvStateMachine(4);
        run(sm, KvOp.SET, "x", "1");
        run(sm, KvOp.SET, "y", "old");
        run(sm, KvOp.INCR, "n");
        return sm;
    }

    @Test
    @DisplayName("every write, undone last first, leaves the contents, the digest and the snapshot bytes as before")
    void undoRestoresExactly() {
        KvStateMachine sm = seeded();
        byte[] before = snapshot(sm);
        long digest = sm.digest();
        Deque<Runnable> undos = new ArrayDeque<>();
        undos.push(speculate(sm, KvOp.SET, "x", "2").undo());
        undos.push(speculate(sm, KvOp.SET_IF_ABSENT, "fresh", "v").undo());
        undos.push(speculate(sm, KvOp.SET_IF_PRESENT, "y", "new").undo());
        undos.push(speculate(sm, KvOp.MSET, "a", "1", "x", "3", "a", "4").undo());
        undos.push(speculate(sm, KvOp.INCR, "n").undo());
        undos.push(speculate(sm, KvOp.DEL, "y", "absent", "fresh").undo());
        undos.push(speculate(sm, KvOp.FLUSHALL).undo());
        undos.push(speculate(sm, KvOp.SET, "after", "flush").undo());
        assertThat(sm.digest()).isNotEqualTo(digest);
        while (!undos.isEmpty()) {
            undos.pop().run();
        }
        assertThat(sm.digest()).isEqualTo(digest);
        assertThat(snapshot(sm)).isEqualTo(before);
    }

    @Test
    @DisplayName("the replies are execute's, a read's undo does nothing, a rejected command changes nothing")
    void repliesAndRejections() {
        KvStateMachine a = seeded();
        KvStateMachine b = seeded();
        assertThat(KvReply.decode(speculate(a, KvOp.INCR, "n").reply())).isEqualTo(run(b, KvOp.INCR, "n"));
        SpeculativeStateMachine.Execution read = speculate(a, KvOp.GET, "x");
        assertThat(KvReply.decode(read.reply())).isEqualTo(run(b, KvOp.GET, "x"));
        assertThat(read.undo()).isSameAs(SpeculativeStateMachine.Execution.NOTHING);
        byte[] before = snapshot(a);
        assertThatThrownBy(() -> speculate(a, KvOp.INCR, "y")).isInstanceOf(KvCommandException.class);
        assertThat(snapshot(a)).isEqualTo(before);
    }
}
