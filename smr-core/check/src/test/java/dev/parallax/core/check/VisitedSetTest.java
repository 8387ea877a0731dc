package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VisitedSetTest {

    @Test
    void remembersConfigurationsByLinearizedSetAndState() {
        VisitedSet visited = new VisitedSet(4, false);
        LinearizedSet set = new LinearizedSet(1_000, 0);

        int added = 0;
        for (int i = 0; i < 1_000; i++) {
            set.add(i);
            for (long state = 0; state < 3; state++) {
                assertThat(visited.add(set, state)).isTrue();
                added++;
            }
        }
        assertThat(visited.size()).isEqualTo(added);

        for (int i = 999; i >= 0; i--) {
            assertThat(visited.add(set, 1L)).isFalse();
            assertThat(visited.add(set, 3L)).isTrue();
            set.remove(i);
        }
        assertThat(visited.add(set, 0L)).isTrue();
        assertThat(visited.add(set, 0L)).isFalse();
    }

    @Test
    void distinguishesEqualHashesOfDifferentStates() {
        VisitedSet visited = new VisitedSet(16, false);
        LinearizedSet set = new LinearizedSet(8, 0);
        // "Aa" and "BB" share String.hashCode().
        assertThat(visited.add(set, "Aa")).isTrue();
        assertThat(visited.add(set, "BB")).isTrue();
        assertThat(visited.add(set, "Aa")).isFalse();
        assertThat(visited.add(set, "BB")).isFalse();
    }

    @Test
    void distinguishesConfigurationsByTheirUnknownOperations() {
        VisitedSet visited = new VisitedSet(16, false);
        LinearizedSet set = new LinearizedSet(4, 130);
        set.add(0);
        assertThat(visited.add(set, 1L)).isTrue();
        set.addUnknown(129);
        assertThat(visited.add(set, 1L)).isTrue();
        set.addUnknown(0);
        assertThat(visited.add(set, 1L)).isTrue();
        set.removeUnknown(129);
        assertThat(visited.add(set, 1L)).isTrue();
        set.removeUnknown(0);
        assertThat(visited.add(set, 1L)).isFalse();
        set.addUnknown(129);
        assertThat(visited.add(set, 1L)).isFalse();
    }

    @Test
    void coversConfigurationsWithMoreUnknownOperationsOnlyWhenAsked() {
        LinearizedSet set = new LinearizedSet(4, 70);
        set.add(1);
        VisitedSet covering = new VisitedSet(16, true);
        set.addUnknown(3);
        assertThat(covering.add(set, "s")).isTrue();
        set.addUnknown(68);
        assertThat(covering.add(set, "s")).as("superset of a visited unknown part").isFalse();
        assertThat(covering.add(set, "t")).as("other state").isTrue();
        set.removeUnknown(3);
        assertThat(covering.add(set, "s")).as("not a superset").isTrue();
        set.removeUnknown(68);
        assertThat(covering.add(set, "s")).as("subset of visited ones").isTrue();
        set.addUnknown(3);
        set.addUnknown(68);
        set.addUnknown(40);
        assertThat(covering.add(set, "s")).isFalse();

        VisitedSet exact = new VisitedSet(16, false);
        assertThat(exact.add(set, "s")).isTrue();
        set.removeUnknown(40);
        assertThat(exact.add(set, "s")).isTrue();
        set.addUnknown(40);
        assertThat(exact.add(set, "s")).isFalse();
    }
}
