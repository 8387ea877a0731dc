package dev.parallax.examples.cli;

import dev.parallax.core.spi.MembershipAdmin;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ShutdownHandover}: only a leader whose ordering has a {@link MembershipAdmin} asks for a
 * transfer to the best caught-up voter ({@code -1}), and waits for it a bounded time; where the
 * membership has parts (Multi-Ring's rings) every replica asks, and one that leads no part stops at
 * once; the wait is {@code shutdown.handover.ms}, else twice the ordering's suspect timeout.
 */
class ShutdownHandoverTest {

    /** Records the transfers asked; answers each with {@code answer}. */
    private static final class FakeAdmin implements MembershipAdmin {
        final List<Integer> asked = new ArrayList<>();
        final CompletableFuture<String> answer;
        final java.util.Map<String, MembershipAdmin> parts;

        FakeAdmin(CompletableFuture<String> answer) {
            this(answer, java.util.Map.of());
        }

        FakeAdmin(CompletableFuture<String> answer, java.util.Map<String, MembershipAdmin> parts) {
            this.answer = answer;
            this.parts = parts;
        }

        @Override
        public java.util.Map<String, MembershipAdmin> parts() {
            return parts;
        }

        @Override
        public CompletableFuture<String> transferLeadership(int id) {
            asked.add(id);
            return answer;
        }

        @Override
        public CompletableFuture<String> addLearner(int id, String hostPort) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<String> promote(int id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<String> remove(int id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String members() {
            return "voters=[0,1,2]";
        }
    }

    private static final Duration SECOND = Duration.ofSeconds(1);

    @Test
    @DisplayName("the leader asks for the best caught-up voter (-1) and reports the new leader")
    void theLeaderHandsOver() {
        FakeAdmin admin = new FakeAdmin(CompletableFuture.completedFuture("replica 2 leads view 5"));
        assertThat(ShutdownHandover.handOver(1, 1, Optional.of(admin), SECOND))
                .startsWith("replica 1 handed its leadership over before stopping").endsWith("replica 2 leads view 5");
        assertThat(admin.asked).containsExactly(-1);
    }

    @Test
    @DisplayName("a follower, an ordering without MembershipAdmin, or a zero wait: nothing is asked")
    void othersStopAsBefore() {
        FakeAdmin admin = new FakeAdmin(CompletableFuture.completedFuture("x"));
        assertThat(ShutdownHandover.handOver(1, 0, Optional.of(admin), SECOND)).isNull();
        assertThat(ShutdownHandover.handOver(1, -1, Optional.of(admin), SECOND)).isNull();
        assertThat(ShutdownHandover.handOver(1, 1, Optional.of(admin), Duration.ZERO)).isNull();
        assertThat(ShutdownHandover.handOver(1, 1, Optional.empty(), SECOND)).isNull();
        assertThat(admin.asked).isEmpty();
    }

    @Test
    @DisplayName("with parts (Multi-Ring's rings) every replica asks: one that leads a part hands it over, one that leads none stops")
    void aReplicaOfSeveralRingsHandsOverTheRingsItCoordinates() {
        FakeAdmin ring = new FakeAdmin(CompletableFuture.completedFuture("x"));
        FakeAdmin leads = new FakeAdmin(CompletableFuture.completedFuture("ring-1: replica 2 coordinates ring-1"),
                java.util.Map.of("ring-0", ring, "ring-1", ring));
        assertThat(ShutdownHandover.handOver(1, 0, Optional.of(leads), SECOND))
                .startsWith("replica 1 handed its leadership over before stopping").endsWith("replica 2 coordinates ring-1");
        assertThat(leads.asked).containsExactly(-1);
        FakeAdmin follows = new FakeAdmin(CompletableFuture.failedFuture(new MembershipAdmin.NotTheLeader(
                "this replica leads none of [ring-0, ring-1]", 0)), java.util.Map.of("ring-0", ring, "ring-1", ring));
        assertThat(ShutdownHandover.handOver(1, 0, Optional.of(follows), SECOND)).isNull();
        assertThat(follows.asked).containsExactly(-1);
    }

    @Test
    @DisplayName("a refused or unanswered transfer: the replica stops anyway, saying why")
    void aFailedTransferDoesNotHoldTheShutdown() {
        FakeAdmin refused = new FakeAdmin(CompletableFuture.failedFuture(
                new MembershipAdmin.MembershipChangeRefused("no other voter to hand leadership to")));
        assertThat(ShutdownHandover.handOver(0, 0, Optional.of(refused), SECOND))
                .isEqualTo("replica 0 stops without handing its leadership over: no other voter to hand leadership to");
        FakeAdmin silent = new FakeAdmin(new CompletableFuture<>());
        assertThat(ShutdownHandover.handOver(0, 0, Optional.of(silent), Duration.ofMillis(1)))
                .contains("no new leader within 1 ms (shutdown.handover.ms)");
    }

    @Test
    @DisplayName("the wait: shutdown.handover.ms, else twice paxos.suspect.ms (ring.suspect.ms for the rings); negative values "
            + "are refused")
    void theWait() {
        Properties p = new Properties();
        p.setProperty("members", "0=127.0.0.1:7000,1=127.0.0.1:7001,2=127.0.0.1:7002");
        assertThat(ShutdownHandover.timeout(ClusterFile.of(p))).isEqualTo(Duration.ofMillis(1000));
        p.setProperty("paxos.suspect.ms", "800");
        assertThat(ShutdownHandover.timeout(ClusterFile.of(p))).isEqualTo(Duration.ofMillis(1600));
        Properties ring = (Properties) p.clone();
        ring.setProperty("ordering", "u-ring");
        ring.setProperty("ring.suspect.ms", "300");
        assertThat(ShutdownHandover.timeout(ClusterFile.of(ring))).isEqualTo(Duration.ofMillis(600));
        p.setProperty("shutdown.handover.ms", "0");
        assertThat(ShutdownHandover.timeout(ClusterFile.of(p))).isZero();
        p.setProperty("shutdown.handover.ms", "-5");
        assertThatThrownBy(() -> ShutdownHandover.timeout(ClusterFile.of(p))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shutdown.handover.ms");
    }
}
