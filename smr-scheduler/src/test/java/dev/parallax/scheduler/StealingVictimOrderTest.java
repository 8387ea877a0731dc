package dev.parallax.scheduler;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The order in which a stealing worker tries its victims (seed 001 §6.2.2.3 and Alg. 8/11). */
class StealingVictimOrderTest {

    private static List<Integer> order(SyncMode mode, int id, int n) {
        List<Integer> out = new ArrayList<>();
        for (int k = 1; k < n; k++) {
            out.add(WorkStealingExecutor.victim(mode, id, k, n));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = SyncMode.class, names = {"WS_NON_BLOCKED", "WS_OPT"})
    void smartVariantsStartAtTheNextThreadModuloN(SyncMode mode) {
        assertThat(order(mode, 0, 4)).containsExactly(1, 2, 3);
        assertThat(order(mode, 1, 4)).containsExactly(2, 3, 0);
        assertThat(order(mode, 3, 4)).containsExactly(0, 1, 2);
        assertThat(order(mode, 2, 3)).containsExactly(0, 1);
        for (int n = 2; n <= 6; n++) {
            for (int id = 0; id < n; id++) {
                List<Integer> o = order(mode, id, n);
                assertThat(o.get(0)).isEqualTo((id + 1) % n);
                assertThat(o).doesNotContain(id).doesNotHaveDuplicates().hasSize(n - 1);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = SyncMode.class, names = {"WS_QUEUE", "WS_SEMI_BLOCKED"})
    void otherVariantsTryTheLowestOtherThreadFirst(SyncMode mode) {
        assertThat(order(mode, 0, 4)).containsExactly(1, 2, 3);
        assertThat(order(mode, 2, 4)).containsExactly(0, 1, 3);
        assertThat(order(mode, 3, 4)).containsExactly(0, 1, 2);
    }

    @Test
    void aSingleWorkerHasNoVictim() {
        assertThat(order(SyncMode.WS_OPT, 0, 1)).isEmpty();
    }
}
