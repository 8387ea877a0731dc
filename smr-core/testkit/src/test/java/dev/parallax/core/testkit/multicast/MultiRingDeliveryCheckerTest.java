package dev.parallax.core.testkit.multicast;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Multi-Ring simulation's checkers fail when they should: a cycle over three learners that no
 * two of them show, duplicates, messages never multicast or not for the learner's groups, two
 * learners of one subscription that diverge, and a learner missing a message after the heal.
 */
class MultiRingDeliveryCheckerTest {

    private static MulticastDeliveryChecker withMessages() {
        MulticastDeliveryChecker c = new MulticastDeliveryChecker();
        c.multicast(1, 0b011);
        c.multicast(2, 0b110);
        c.multicast(3, 0b101);
        return c;
    }

    @Test
    @DisplayName("A cycle 1 < 2 < 3 < 1 spread over three learners (each pair agrees) is caught by the graph check")
    void threeLearnerCycle() {
        MulticastDeliveryChecker c = withMessages();
        MulticastDeliveryChecker.Learner a = c.learner("a", 0b010);
        MulticastDeliveryChecker.Learner b = c.learner("b", 0b100);
        MulticastDeliveryChecker.Learner d = c.learner("d", 0b001);
        c.delivered(a, 1, 0);
        c.delivered(a, 2, 0);
        c.delivered(b, 2, 0);
        c.delivered(b, 3, 0);
        c.delivered(d, 3, 0);
        c.delivered(d, 1, 0);
        assertThatThrownBy(c::assertAcyclic).hasMessageContaining("cycle");
    }

    @Test
    @DisplayName("One order everywhere passes the graph check")
    void oneOrderIsAcyclic() {
        MulticastDeliveryChecker c = withMessages();
        MulticastDeliveryChecker.Learner a = c.learner("a", 0b111);
        MulticastDeliveryChecker.Learner b = c.learner("b", 0b100);
        c.delivered(a, 1, 0);
        c.delivered(a, 2, 0);
        c.delivered(a, 3, 0);
        c.delivered(b, 2, 0);
        c.delivered(b, 3, 0);
        assertThatCode(c::assertAcyclic).doesNotThrowAnyException();
        assertThatCode(() -> c.assertComplete(List.of(a, b), List.of(1L, 2L, 3L))).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("Exactly-once and integrity: a duplicate, a message never multicast, one for other groups")
    void integrity() {
        MulticastDeliveryChecker c = withMessages();
        MulticastDeliveryChecker.Learner a = c.learner("a", 0b001);
        c.delivered(a, 1, 0);
        assertThatThrownBy(() -> c.delivered(a, 1, 0)).hasMessageContaining("exactly-once");
        assertThatThrownBy(() -> c.delivered(a, 9, 0)).hasMessageContaining("never multicast");
        assertThatThrownBy(() -> c.delivered(a, 2, 0)).hasMessageContaining("integrity");
    }

    @Test
    @DisplayName("Agreement: two learners of one subscription that diverge; validity: a learner that misses a message")
    void agreementAndValidity() {
        MulticastDeliveryChecker c = withMessages();
        MulticastDeliveryChecker.Learner a = c.learner("a", 0b001);
        MulticastDeliveryChecker.Learner b = c.learner("b", 0b001);
        c.delivered(a, 1, 0);
        assertThatThrownBy(() -> c.delivered(b, 3, 0)).hasMessageContaining("agreement");
        MulticastDeliveryChecker.Learner d = c.learner("d", 0b100);
        assertThatThrownBy(() -> c.assertComplete(List.of(d), List.of(2L))).hasMessageContaining("validity");
    }
}
