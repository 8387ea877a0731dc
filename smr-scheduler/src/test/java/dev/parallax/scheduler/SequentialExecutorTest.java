package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.spi.Executor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SequentialExecutorTest {

    @Test
    void runsEachCommandOnTheCallerBeforeReturning() throws Exception {
        List<String> threads = new ArrayList<>();
        try (Executor ex = Execution.sequential()) {
            ex.start(new ExecutorLifecycleTest.Echo(), (c, r) -> threads.add(Thread.currentThread().getName()));
            ex.execute(Command.of(1, 1, new byte[] {1}));
            assertThat(threads).containsExactly(Thread.currentThread().getName());
            ex.awaitQuiescence();
        }
    }

    @Test
    void aThrowingCommandBecomesAFailedResult() throws Exception {
        List<CommandResult> results = new ArrayList<>();
        try (Executor ex = Execution.sequential()) {
            ex.start(new ExecutorLifecycleTest.Echo() {
                @Override
                public ByteBuffer execute(ByteBuffer command) {
                    if (command.get(0) == 0) {
                        throw new IllegalArgumentException("zero");
                    }
                    return super.execute(command);
                }
            }, (c, r) -> results.add(r));
            ex.execute(Command.of(1, 1, new byte[] {0}));
            ex.execute(Command.of(1, 2, new byte[] {5}));
        }
        assertThat(results.get(0)).isEqualTo(CommandResult.error("IllegalArgumentException: zero"));
        assertThat(results.get(1).reply().get(0)).isEqualTo((byte) 5);
    }

    @Test
    void rejectsUseBeforeStartAndAfterClose() {
        Executor ex = Execution.sequential();
        assertThatThrownBy(() -> ex.execute(Command.of(1, 1, new byte[0]))).isInstanceOf(IllegalStateException.class);
        ex.start(new ExecutorLifecycleTest.Echo(), (c, r) -> { });
        assertThatThrownBy(() -> ex.start(new ExecutorLifecycleTest.Echo(), (c, r) -> { }))
                .isInstanceOf(IllegalStateException.class);
        ex.close();
        assertThatThrownBy(() -> ex.execute(Command.of(1, 1, new byte[0]))).isInstanceOf(IllegalStateException.class);
    }
}
