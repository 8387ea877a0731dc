package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.core.StateMachine;
import dev.parallax.core.spi.Executor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the sequential executor does; the rest of its contract (error results, fatal errors,
 * lifecycle misuse) is in {@link SequentialContractTest}.
 */
class SequentialExecutorTest {

    @Test
    void runsEachCommandOnTheCallerBeforeReturning() throws Exception {
        List<String> threads = new ArrayList<>();
        try (Executor ex = Execution.sequential()) {
            ex.start(new Echo(), (c, r) -> threads.add(Thread.currentThread().getName()));
            ex.execute(Command.of(1, 1, new byte[] {1}));
            assertThat(threads).containsExactly(Thread.currentThread().getName());
            ex.awaitQuiescence();
        }
    }

    /** A throwaway state machine: replies with the command. */
    private static final class Echo implements StateMachine {
        @Override
        public ByteBuffer execute(ByteBuffer command) {
            return command;
        }

        @Override
        public void snapshot(WritableByteChannel out) {
        }

        @Override
        public void restore(ReadableByteChannel in) {
        }
    }
}
