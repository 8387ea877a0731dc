package dev.parallax.core.testkit.executor;

import dev.parallax.core.Command;
import dev.parallax.core.GroupSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract's workloads: γ consistent with conflicts, reproducible from the shape. */
class ExecutorWorkloadTest {

    @Property(tries = 40)
    void everyTwoConflictingCommandsShareAGroup(@ForAll("workloads") WorkloadShape shape) {
        List<Command> commands = shape.generate().commands();
        for (int i = 0; i < commands.size(); i++) {
            for (int j = i + 1; j < commands.size(); j++) {
                Command a = commands.get(i);
                Command b = commands.get(j);
                if (ShardedTestMachine.conflict(a, b)) {
                    assertThat(a.groups().intersects(b.groups())).as("%s and %s", a, b).isTrue();
                }
            }
        }
    }

    @Property(tries = 40)
    void aLocalCommandGoesToItsShardsGroupAndAGlobalOneToAll(@ForAll("workloads") WorkloadShape shape) {
        ExecutorWorkload w = shape.generate();
        assertThat(w.commands()).hasSize(shape.commands());
        for (Command c : w.commands()) {
            GroupSet expected = ShardedTestMachine.isGlobal(ShardedTestMachine.op(c)) ? w.allGroups()
                    : GroupSet.of(ShardedTestMachine.shard(c));
            assertThat(c.groups()).as("%s", c).isEqualTo(expected);
        }
    }

    @Property(tries = 20)
    void aShapeGeneratesTheSameCommandsEveryTime(@ForAll("workloads") WorkloadShape shape) {
        assertThat(shape.generate().commands()).isEqualTo(shape.generate().commands());
    }

    @Provide
    Arbitrary<WorkloadShape> workloads() {
        return WorkloadShape.any();
    }

    @Test
    void conflictsAreCommonShardsWithAWrite() {
        Command read0 = ShardedTestMachine.command(3, 1, ShardedTestMachine.LOCAL_READ, 0, 0, 0, false);
        Command read0b = ShardedTestMachine.command(3, 2, ShardedTestMachine.LOCAL_READ, 0, 0, 0, false);
        Command write0 = ShardedTestMachine.command(3, 3, ShardedTestMachine.LOCAL_WRITE, 0, 0, 0, false);
        Command write1 = ShardedTestMachine.command(3, 4, ShardedTestMachine.LOCAL_WRITE, 1, 0, 0, false);
        Command globalRead = ShardedTestMachine.command(3, 5, ShardedTestMachine.GLOBAL_READ, 0, 0, 0, false);
        assertThat(ShardedTestMachine.conflict(read0, read0b)).isFalse();
        assertThat(ShardedTestMachine.conflict(read0, write0)).isTrue();
        assertThat(ShardedTestMachine.conflict(write0, write1)).isFalse();
        assertThat(ShardedTestMachine.conflict(globalRead, write1)).isTrue();
        assertThat(ShardedTestMachine.conflict(globalRead, read0)).isFalse();
        assertThat(globalRead.groups()).isEqualTo(GroupSet.of(0, 1, 2));
        assertThat(write1.groups()).isEqualTo(GroupSet.of(1));
        assertThat(ShardedTestMachine.allGroups(64).size()).isEqualTo(64);
    }

    @Test
    void badCommandArgumentsAreRejected() {
        assertThatThrownBy(() -> ShardedTestMachine.command(2, 1, ShardedTestMachine.LOCAL_READ, 2, 0, 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shard must be 0..1");
        assertThatThrownBy(() -> ShardedTestMachine.command(65, 1, ShardedTestMachine.LOCAL_READ, 0, 0, 0, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shards must be 1..64");
        assertThatThrownBy(() -> ExecutorWorkload.of(2, 0, 8, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads");
    }
}
