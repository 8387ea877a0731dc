package dev.parallax.core.testkit.smr;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulations' safety oracle catches what it claims to, at the decision that breaks the rule. */
class SafetyMonitorTest {
    private static final String NOOP = "";
    private static final String A = "a";
    private static final String B = "b";

    @Test
    void agreementHoldsWhenEveryReplicaDecidesTheSameValuePerInstance() {
        SafetyMonitor<String> m = new SafetyMonitor<String>(String::isEmpty);
        m.proposed(A);
        m.proposed(B);
        m.decided(0, 0, A);
        m.decided(1, 0, A);
        m.decided(2, 1, NOOP);
        m.decided(0, 1, NOOP);
        m.decided(1, 2, B);
        assertThat(m.decisions()).isEqualTo(5);
        assertThat(m.instances()).isEqualTo(3);
    }

    @Test
    void twoReplicasDecidingDifferentValuesForOneInstanceBreakAgreement() {
        SafetyMonitor<String> m = new SafetyMonitor<String>(String::isEmpty);
        m.proposed(A);
        m.proposed(B);
        m.decided(0, 7, A);
        assertThatThrownBy(() -> m.decided(2, 7, B)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("agreement").hasMessageContaining("instance 7");
        assertThatThrownBy(() -> m.decided(1, 7, NOOP)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("agreement");
    }

    @Test
    void decidingAValueNobodyProposedBreaksValidity() {
        SafetyMonitor<String> m = new SafetyMonitor<String>(String::isEmpty);
        m.proposed(A);
        assertThatThrownBy(() -> m.decided(1, 0, B)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("validity").hasMessageContaining("nobody proposed");
    }
}
