package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ValueIdTest {

    @Test
    void onlyProposersValuesAreClientValues() {
        assertThat(new ValueId(2, 1, 7).isClientValue()).isTrue();
        assertThat(ValueId.NOOP.isClientValue()).isFalse();
        assertThat(ValueId.skip(40).isClientValue()).isFalse();
        assertThat(ValueId.configuration(3, 9).isClientValue()).isFalse();
    }

    @Test
    @DisplayName("NOOP is (-1, 0, 0), the empty value a new coordinator proposes for a gap")
    void noop() {
        assertThat(ValueId.NOOP).isEqualTo(new ValueId(-1, 0, 0));
        assertThat(ValueId.NOOP.isNoop()).isTrue();
        assertThat(new ValueId(0, 0, 1).isNoop()).isFalse();
        assertThat(ValueId.NOOP).hasToString("NOOP");
        assertThat(new ValueId(2, 7, 1)).hasToString("2/7/1");
    }

    @Test
    @DisplayName("a proposer-assigned id has an origin, an incarnation >= 0 and a seq from 1 (seed 003 (Ring Paxos) Alg. 2 l.17; S-Paxos rule 6)")
    void onlyWellFormedIdsExist() {
        assertThat(new ValueId(0, 0, 1).seq()).isEqualTo(1);
        assertThat(new ValueId(Short.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE).origin()).isEqualTo(Short.MAX_VALUE);
        for (long[] bad : new long[][]{{0, 0, 0}, {1, -1, 1}, {-1, 0, 1}, {-1, 1, 0}, {-2, 0, 0}, {Short.MAX_VALUE + 1, 0, 1}}) {
            assertThatThrownBy(() -> new ValueId((int) bad[0], bad[1], bad[2])).as("%s", java.util.Arrays.toString(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a value id");
        }
    }

    @Test
    @DisplayName("a skip (-2, 0, upTo >= 1) names its absolute target and carries no body "
            + "(seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 5 Alg. 1 l.13-20)")
    void skips() {
        ValueId skip = ValueId.skip(250);
        assertThat(skip).isEqualTo(new ValueId(ValueId.SKIP_ORIGIN, 0, 250));
        assertThat(skip.isSkip()).isTrue();
        assertThat(skip.isNoop()).isFalse();
        assertThat(skip.isBodiless()).isTrue();
        assertThat(skip.upTo()).isEqualTo(250);
        assertThat(skip).hasToString("SKIP(250)");
        assertThat(ValueId.NOOP.isBodiless()).isTrue();
        assertThat(ValueId.NOOP.upTo()).isEqualTo(-1);
        assertThat(new ValueId(0, 0, 1).isBodiless()).isFalse();
        assertThat(new ValueId(0, 0, 1).isSkip()).isFalse();
        for (long bad : new long[]{0, -1, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> ValueId.skip(bad)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target");
            assertThatThrownBy(() -> new ValueId(-2, 0, bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a value id");
        }
        assertThatThrownBy(() -> new ValueId(-2, 1, 5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a value id");
        assertThatThrownBy(() -> new ValueId(-3, 0, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a value id");
        assertThatThrownBy(() -> new ValueId(-4, 0, 5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a value id");
        ValueId config = ValueId.configuration(7, 4);
        assertThat(config).as("a configuration command: origin -3, the round, the instance + 1").isEqualTo(new ValueId(-3, 7, 5));
        assertThat(config.isConfig()).isTrue();
        assertThat(config.isBodiless()).as("it carries its change").isFalse();
        assertThat(config.isSkip() || config.isNoop()).isFalse();
        RingValue.Chosen chosen = new RingValue.Chosen(skip, null);
        assertThat(chosen.bytes().remaining()).isZero();
    }

    @Test
    @DisplayName("ids order by origin, incarnation, seq; NOOP first; equal ids name one body")
    void ordering() {
        List<ValueId> ids = new ArrayList<>(List.of(new ValueId(1, 2, 1), new ValueId(0, 3, 9), new ValueId(1, 1, 5),
                ValueId.NOOP, new ValueId(1, 2, 2)));
        Collections.shuffle(ids, new java.util.Random(3));
        Collections.sort(ids);
        assertThat(ids).containsExactly(ValueId.NOOP, new ValueId(0, 3, 9), new ValueId(1, 1, 5), new ValueId(1, 2, 1),
                new ValueId(1, 2, 2));
        assertThat(new ValueId(1, 2, 1)).isEqualByComparingTo(new ValueId(1, 2, 1)).hasSameHashCodeAs(new ValueId(1, 2, 1));
    }

    @Test
    @DisplayName("a decided NOOP carries no bytes; a decided value needs its body (RingValue.Chosen)")
    void chosenValues() {
        RingValue.Chosen noop = new RingValue.Chosen(ValueId.NOOP, null);
        assertThat(noop.bytes().remaining()).isZero();
        assertThat(noop.bytes().isReadOnly()).isTrue();
        assertThatThrownBy(() -> new RingValue.Chosen(new ValueId(0, 0, 1), null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RingValue.Chosen(null, ByteBuffer.allocate(1))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RingValue.ClientBatch(null)).isInstanceOf(NullPointerException.class);
        assertThat(new RingValue.Chosen(new ValueId(0, 0, 1), ByteBuffer.wrap(new byte[]{1})))
                .isEqualTo(new RingValue.Chosen(new ValueId(0, 0, 1), ByteBuffer.wrap(new byte[]{1}).asReadOnlyBuffer()));
    }
}
