package dev.parallax.examples.kv;

import static dev.parallax.examples.kv.KvTesting.restore;
import static dev.parallax.examples.kv.KvTesting.run;
import static dev.parallax.examples.kv.KvTesting.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The contents digest that replicas export to show they converged. */
class KvStateMachineDigestTest {

    @Test
    void anEmptyStoreHasDigestZeroAndReadsDoNotChangeIt() {
        KvStateMachine sm = new KvStateMachine();
        assertThat(sm.digest()).isZero();
        run(sm, KvOp.GET, "k");
        run(sm, KvOp.EXISTS, "k");
        run(sm, KvOp.MGET, "k", "l");
        run(sm, KvOp.DEL, "absent");
        assertThat(sm.digest()).isZero();
    }

    @Test
    void theSameContentsReachedByDifferentCommandsGiveTheSameDigest() {
        KvStateMachine a = new KvStateMachine();
        run(a, KvOp.SET, "x", "1");
        run(a, KvOp.SET, "y", "old");
        run(a, KvOp.SET, "y", "2");
        run(a, KvOp.SET, "gone", "v");
        run(a, KvOp.DEL, "gone");
        run(a, KvOp.INCR, "n");
        KvStateMachine b = new KvStateMachine();
        run(b, KvOp.MSET, "n", "1", "y", "2");
        run(b, KvOp.SET_IF_ABSENT, "x", "1");
        run(b, KvOp.SET_IF_ABSENT, "x", "other");
        run(b, KvOp.SET_IF_PRESENT, "absent", "v");
        assertThat(a.digest()).isEqualTo(b.digest()).isNotZero();
    }

    @Test
    void everyKindOfChangeChangesTheDigest() {
        KvStateMachine sm = new KvStateMachine();
        long last = sm.digest();
        for (Runnable change : new Runnable[] {
                () -> run(sm, KvOp.SET, "k", "v"),
                () -> run(sm, KvOp.SET_IF_PRESENT, "k", "w"),
                () -> run(sm, KvOp.SET_IF_ABSENT, "j", "v"),
                () -> run(sm, KvOp.MSET, "a", "1", "b", "2"),
                () -> run(sm, KvOp.INCR, "a"),
                () -> run(sm, KvOp.DEL, "b")}) {
            change.run();
            assertThat(sm.digest()).isNotEqualTo(last);
            last = sm.digest();
        }
        // Same key, values swapped between keys: not the same contents.
        KvStateMachine p = new KvStateMachine();
        KvStateMachine q = new KvStateMachine();
        run(p, KvOp.MSET, "a", "1", "b", "2");
        run(q, KvOp.MSET, "a", "2", "b", "1");
        assertThat(p.digest()).isNotEqualTo(q.digest());
    }

    @Test
    void aRejectedIncrLeavesTheDigestAlone() {
        KvStateMachine sm = new KvStateMachine();
        run(sm, KvOp.SET, "text", "abc");
        long before = sm.digest();
        assertThatThrownBy(() -> run(sm, KvOp.INCR, "text")).isInstanceOf(KvCommandException.class);
        assertThat(sm.digest()).isEqualTo(before);
    }

    @Test
    void aRestoredSnapshotHasTheDigestOfItsSourceAndFitsADouble() throws IOException {
        KvStateMachine source = new KvStateMachine();
        for (int i = 0; i < 1000; i++) {
            run(source, KvOp.SET, "key-" + i, "value-" + i * 7);
        }
        KvStateMachine target = new KvStateMachine();
        run(target, KvOp.SET, "stale", "entry");
        restore(target, snapshot(source));
        assertThat(target.digest()).isEqualTo(source.digest());
        assertThat((long) (double) source.digest()).as("exact as a metrics gauge").isEqualTo(source.digest());
        assertThat(source.digest()).isBetween(0L, (1L << 52) - 1);
        run(target, KvOp.DEL, "key-0");
        run(source, KvOp.DEL, "key-0");
        assertThat(target.digest()).isEqualTo(source.digest());
    }
}
