package dev.parallax.scheduler.ssmr;

import dev.parallax.core.runtime.ReplicaBoundExecutor;
import dev.parallax.core.stage.ThreadPlacement;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which placement an S-SMR replica takes under {@code threads=auto}. */
class ReplicaSsmrExecutorPlacementTest {

    @Test
    void anSsmrReplicaIsStagedUnderAutoWhateverTheCores() {
        ReplicaBoundExecutor executor = new ReplicaSsmrExecutor(SsmrConfig.of(0, 2), List.of(new int[] {0, 1, 2}, new int[] {3, 4, 5}));
        assertThat(executor.autoPlacement(2)).isEqualTo(ThreadPlacement.STAGED);
        assertThat(executor.autoPlacement(64)).isEqualTo(ThreadPlacement.STAGED);
    }

    @Test
    void anotherReplicaBoundExecutorFollowsAutosRule() {
        ReplicaBoundExecutor plain = new ReplicaBoundExecutor() {
            @Override
            public void bind(dev.parallax.core.runtime.OrderingContext context) {
            }

            @Override
            public void start(dev.parallax.core.StateMachine stateMachine, dev.parallax.core.spi.ResultSink results) {
            }

            @Override
            public void execute(dev.parallax.core.Command command) {
            }

            @Override
            public void awaitQuiescence() {
            }

            @Override
            public void close() {
            }
        };
        assertThat(plain.autoPlacement(2)).isEqualTo(ThreadPlacement.AUTO.resolve(2));
        assertThat(plain.autoPlacement(8)).isEqualTo(ThreadPlacement.STAGED);
    }
}
