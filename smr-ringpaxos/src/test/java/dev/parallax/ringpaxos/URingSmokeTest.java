package dev.parallax.ringpaxos;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class URingSmokeTest {
    @Test
    void threeMembersDecide() {
        RingCluster c = new RingCluster(RingCluster.uRing(3));
        c.start();
        assertThat(c.core(0).isCoordinator()).isTrue();
        assertThat(c.propose(1, RingCluster.batch("a"))).isTrue();
        c.deliverAll(1000);
        assertThat(c.propose(2, RingCluster.batch("b"))).isTrue();
        c.deliverAll(1000);
        assertThat(c.propose(0, RingCluster.batch("c"))).isTrue();
        c.deliverAll(1000);
        c.trace().forEach(System.out::println);
        for (int i = 0; i < 3; i++) {
            assertThat(c.texts(i)).containsExactly("a", "b", "c");
        }
    }
}
