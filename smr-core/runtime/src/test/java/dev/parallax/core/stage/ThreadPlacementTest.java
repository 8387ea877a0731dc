package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ThreadPlacementTest {

    @Test
    void autoIsCompactBelowTheThresholdAndStagedFromIt() {
        assertThat(ThreadPlacement.AUTO.resolve(1)).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(ThreadPlacement.AUTO.resolve(2)).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(ThreadPlacement.AUTO.resolve(4)).isEqualTo(ThreadPlacement.STAGED);
        assertThat(ThreadPlacement.AUTO.resolve(ThreadPlacement.STAGED_FROM_CORES - 1)).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(ThreadPlacement.AUTO.resolve(ThreadPlacement.STAGED_FROM_CORES)).isEqualTo(ThreadPlacement.STAGED);
        assertThat(ThreadPlacement.AUTO.resolve(64)).isEqualTo(ThreadPlacement.STAGED);
    }

    @Test
    void explicitPlacementsIgnoreTheCoreCount() {
        for (int cores : new int[] {1, 2, 8, 64}) {
            assertThat(ThreadPlacement.STAGED.resolve(cores)).isEqualTo(ThreadPlacement.STAGED);
            assertThat(ThreadPlacement.COMPACT.resolve(cores)).isEqualTo(ThreadPlacement.COMPACT);
        }
    }

    @Test
    void parseAcceptsConfigNamesIgnoringCaseAndBlanks() {
        for (ThreadPlacement placement : ThreadPlacement.values()) {
            assertThat(ThreadPlacement.parse(placement.configName())).isEqualTo(placement);
        }
        assertThat(ThreadPlacement.parse(" Compact ")).isEqualTo(ThreadPlacement.COMPACT);
        assertThat(ThreadPlacement.parse("STAGED")).isEqualTo(ThreadPlacement.STAGED);
        assertThat(ThreadPlacement.AUTO.configName()).isEqualTo("auto");
    }

    @Test
    void parseRejectsUnknownNamesNamingTheAcceptedOnes() {
        assertThatThrownBy(() -> ThreadPlacement.parse("one-per-core"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("staged").hasMessageContaining("compact").hasMessageContaining("auto")
                .hasMessageContaining("one-per-core");
        assertThatThrownBy(() -> ThreadPlacement.parse("")).isInstanceOf(IllegalArgumentException.class);
    }
}
