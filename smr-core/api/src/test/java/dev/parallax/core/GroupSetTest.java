package dev.parallax.core;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GroupSetTest {

    @Property
    void iterationVisitsExactlyTheMembersInOrder(@ForAll @Size(min = 1, max = 20) List<@IntRange(min = 0, max = 63) Integer> groups) {
        GroupSet set = GroupSet.of(groups.stream().mapToInt(Integer::intValue).toArray());
        List<Integer> seen = new ArrayList<>();
        for (int g = set.first(); g >= 0; g = set.next(g)) {
            seen.add(g);
        }
        assertThat(seen).containsExactlyElementsOf(new TreeSet<>(groups));
        assertThat(set.size()).isEqualTo(new TreeSet<>(groups).size());
        groups.forEach(g -> assertThat(set.contains(g)).isTrue());
    }

    @Test
    void basics() {
        assertThat(GroupSet.of(1, 5).intersects(GroupSet.of(5, 9))).isTrue();
        assertThat(GroupSet.of(1).intersects(GroupSet.of(2))).isFalse();
        assertThat(GroupSet.of(63).next(63)).isEqualTo(-1);
        assertThat(GroupSet.of(0, 63).toString()).isEqualTo("{0,63}");
        assertThat(GroupSet.ofBits(6)).isEqualTo(GroupSet.of(1, 2));
        assertThat(GroupSet.of(3).contains(64)).isFalse();
        assertThatThrownBy(GroupSet::of).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GroupSet.of(64)).hasMessageContaining("0..63");
        assertThatThrownBy(() -> GroupSet.ofBits(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rangesAreContiguous() {
        assertThat(GroupSet.range(0, 0)).isEqualTo(GroupSet.DEFAULT);
        assertThat(GroupSet.range(2, 4)).isEqualTo(GroupSet.of(2, 3, 4));
        assertThat(GroupSet.range(0, 63).bits()).isEqualTo(-1L);
        assertThat(GroupSet.range(63, 63)).isEqualTo(GroupSet.of(63));
        assertThatThrownBy(() -> GroupSet.range(3, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GroupSet.range(0, 64)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GroupSet.range(-1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(GroupSet.partition(3)).isEqualTo(GroupSet.of(0, 1, 2));
        assertThat(GroupSet.partition(64).bits()).isEqualTo(-1L);
        assertThatThrownBy(() -> GroupSet.partition(0)).hasMessageContaining("1..64");
        assertThatThrownBy(() -> GroupSet.partition(65)).hasMessageContaining("1..64");
    }
}
