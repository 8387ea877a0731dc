package dev.parallax.core.runtime;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatagramFaultsTest {

    @Test
    @DisplayName("mring.test.faults: every key parses, in any order; blank text is NONE; the text round-trips")
    void parsesEveryKey() {
        DatagramFaults f = DatagramFaults.parse(" seed=7, reorder=4,dup=0.01 ,drop=0.02");
        assertThat(f).isEqualTo(new DatagramFaults(0.02, 0.01, 4, 7));
        assertThat(f.active()).isTrue();
        assertThat(DatagramFaults.parse(f.toString())).isEqualTo(f);
        assertThat(DatagramFaults.parse("")).isSameAs(DatagramFaults.NONE);
        assertThat(DatagramFaults.parse("  ")).isSameAs(DatagramFaults.NONE);
        assertThat(DatagramFaults.parse(null)).isSameAs(DatagramFaults.NONE);
        assertThat(DatagramFaults.NONE.active()).isFalse();
        assertThat(DatagramFaults.parse("seed=3").active()).as("a seed alone injects nothing").isFalse();
        assertThat(DatagramFaults.parse("reorder=1").active()).as("a window of one keeps the order").isFalse();
        assertThat(DatagramFaults.parse("drop=1").drop()).isEqualTo(1.0);
    }

    @Test
    @DisplayName("a malformed mring.test.faults names the offending key")
    void parseErrorsNameTheKey() {
        assertThatThrownBy(() -> DatagramFaults.parse("drop=abc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'drop'");
        assertThatThrownBy(() -> DatagramFaults.parse("drop=1.5")).hasMessageContaining("'drop'").hasMessageContaining("[0, 1]");
        assertThatThrownBy(() -> DatagramFaults.parse("dup=-0.1")).hasMessageContaining("'dup'");
        assertThatThrownBy(() -> DatagramFaults.parse("reorder=-2")).hasMessageContaining("'reorder'");
        assertThatThrownBy(() -> DatagramFaults.parse("reorder=2.5")).hasMessageContaining("'reorder'");
        assertThatThrownBy(() -> DatagramFaults.parse("seed=x")).hasMessageContaining("'seed'");
        assertThatThrownBy(() -> DatagramFaults.parse("loss=0.1")).hasMessageContaining("'loss'")
                .hasMessageContaining("unknown key");
        assertThatThrownBy(() -> DatagramFaults.parse("drop=0.1,drop=0.2")).hasMessageContaining("'drop'")
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> DatagramFaults.parse("drop")).hasMessageContaining("'drop'").hasMessageContaining("key=value");
        assertThatThrownBy(() -> DatagramFaults.parse("drop=0.1,")).hasMessageContaining("key=value");
        assertThatThrownBy(() -> DatagramFaults.parse("drop=NaN")).hasMessageContaining("'drop'");
    }

    @Test
    @DisplayName("the record refuses probabilities outside [0, 1] and negative windows")
    void recordValidates() {
        assertThatThrownBy(() -> new DatagramFaults(Double.NaN, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DatagramFaults(0, 2, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DatagramFaults(0, 0, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
