package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.testkit.executor.ResultRecorder;
import dev.parallax.core.testkit.executor.ShardedTestMachine;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The late-scheduling graph stays consistent when the application's conflict relation throws. */
class DependencyGraphTest {

    private static DependencyGraph.Node node(long seq) {
        return new DependencyGraph.Node(Command.of(1, seq, new byte[] {(byte) seq}), 0);
    }

    @Test
    void aTestThatThrowsMidScanLeavesTheGraphAsItWas() {
        AtomicInteger calls = new AtomicInteger();
        boolean[] throwOnSecond = {false};
        DependencyGraph graph = new DependencyGraph((earlier, later) -> {
            if (throwOnSecond[0] && calls.incrementAndGet() == 2) {
                throw new IllegalStateException("boom");
            }
            return true;
        }, 8);
        DependencyGraph.Node a = node(1);
        DependencyGraph.Node b = node(2);
        assertThat(graph.insert(a)).isTrue();
        assertThat(graph.insert(b)).isFalse();
        throwOnSecond[0] = true;
        DependencyGraph.Node c = node(3);
        assertThatThrownBy(() -> graph.insert(c)).hasMessage("boom");
        assertThat(calls).hasValue(2);
        assertThat(graph.size()).isEqualTo(2);
        assertThat(graph.readyCount()).isEqualTo(1);
        assertThat(c.pending).isZero();

        throwOnSecond[0] = false;
        DependencyGraph.Node d = node(4);
        assertThat(graph.insert(d)).isFalse();
        assertThat(d.pending).isEqualTo(2);
        assertThat(graph.take()).isSameAs(a);
        assertThat(graph.take()).isNull();
        assertThat(graph.complete(a)).isEqualTo(1);
        assertThat(graph.take()).isSameAs(b);
        assertThat(graph.complete(b)).isEqualTo(1);
        assertThat(graph.take()).isSameAs(d);
        assertThat(graph.complete(d)).isZero();
        assertThat(graph.take()).isNull();
        assertThat(graph.size()).isZero();
    }

    /**
     * A relation that throws on the second pair of a scan (after a first conflict was found): the
     * command gets an error result and is not executed; the commands around it keep their order.
     */
    @Test
    void aRelationThatThrowsGivesTheCommandAnErrorResultAndConflictingCommandsKeepTheirOrder() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ShardedTestMachine machine = new ShardedTestMachine(1, (op, shard, value) -> {
            if (value == 99) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Command a = ShardedTestMachine.command(1, 1, ShardedTestMachine.LOCAL_WRITE, 0, 99, 0, false);
        Command b = ShardedTestMachine.command(1, 2, ShardedTestMachine.LOCAL_WRITE, 0, 2, 0, false);
        Command c = ShardedTestMachine.command(1, 3, ShardedTestMachine.LOCAL_WRITE, 0, 3, 0, false);
        Command d = ShardedTestMachine.command(1, 4, ShardedTestMachine.LOCAL_WRITE, 0, 4, 0, false);
        ConflictRelation relation = (earlier, later) -> {
            if (later.equals(c) && earlier.equals(b)) {
                throw new IllegalStateException("cannot compare " + later.id());
            }
            return true;
        };
        ResultRecorder results = new ResultRecorder();
        try (Executor ex = Execution.lateScheduling(relation, 2, 8)) {
            ex.start(machine, results);
            ex.execute(a);
            entered.await();
            ex.execute(b);
            ex.execute(c);
            ex.execute(d);
            release.countDown();
            ex.awaitQuiescence();
            Command e = ShardedTestMachine.command(1, 5, ShardedTestMachine.LOCAL_WRITE, 0, 5, 0, false);
            ex.execute(e);
            ex.awaitQuiescence();
        }
        assertThat(results.results().get(c.id())).isEqualTo(CommandResult.error(
                "unclassifiable command: conflict relation threw IllegalStateException: cannot compare " + c.id()));
        assertThat(results.unclassifiable()).containsExactly(c.id());
        assertThat(results.results()).hasSize(5);
        assertThat(machine.state()[0]).isEqualTo((((99L * 31 + 2) * 31 + 4) * 31) + 5);
        assertThat(machine.overlaps()).isZero();
    }
}
