package dev.parallax.core.multicast;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipChange;
import dev.parallax.core.spi.MembershipAdmin;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.multicast.StreamMembership.UNCHANGED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A group ordered by several streams changes its members stream by stream ({@link StreamsMembership}):
 * a change goes through every part in order and stops at the first refusal, naming the parts that
 * took it; the group's members are what every part agrees on.
 */
class StreamsMembershipTest {

    /** A part that applies changes to its membership at once, or refuses every one as not its leader. */
    private static final class Part implements StreamMembership {
        private volatile Membership members = Membership.initial(3);
        private final int leader;
        private final int self;
        final List<String> asked = new ArrayList<>();

        Part(int self, int leader) {
            this.self = self;
            this.leader = leader;
        }

        @Override
        public Membership membership() {
            return members;
        }

        private CompletableFuture<String> apply(MembershipChange c) {
            asked.add(c.kind() + " " + c.id());
            if (self != leader) {
                return CompletableFuture.failedFuture(new NotTheLeader("replica " + self + " does not lead", leader));
            }
            String why = members.refusal(c);
            if (why != null) {
                return CompletableFuture.failedFuture(new MembershipChangeRefused(why));
            }
            members = members.apply(c);
            return CompletableFuture.completedFuture(members.describe());
        }

        @Override
        public CompletableFuture<String> addLearner(int id, String hostPort) {
            return apply(MembershipChange.addLearner(id, hostPort, 4));
        }

        @Override
        public CompletableFuture<String> promote(int id) {
            return apply(MembershipChange.promote(id, 4));
        }

        @Override
        public CompletableFuture<String> remove(int id) {
            return apply(MembershipChange.remove(id, 4));
        }

        @Override
        public CompletableFuture<String> replace(int oldId, int newId, String hostPort) {
            return apply(MembershipChange.replace(oldId, newId, hostPort, 4));
        }

        @Override
        public CompletableFuture<String> transferLeadership(int id) {
            asked.add("TRANSFER " + id);
            if (self != leader) {
                return CompletableFuture.failedFuture(new NotTheLeader("replica " + self + " does not lead", leader));
            }
            if (id == 9) {
                return CompletableFuture.completedFuture(UNCHANGED + "replica 9 is no member");
            }
            if (!members.isVoter(id < 0 ? 1 : id)) {
                return CompletableFuture.failedFuture(new MembershipChangeRefused("replica " + id + " is not a voter"));
            }
            return CompletableFuture.completedFuture("replica " + (id < 0 ? 1 : id) + " leads");
        }
    }

    private static StreamsMembership of(Map<String, StreamMembership> parts) {
        StreamsMembership m = new StreamsMembership();
        m.started(parts);
        return m;
    }

    @Test
    @DisplayName("a change goes through every part in order; the group's voters are those voting in every part")
    void aChangeGoesThroughEveryPart() throws Exception {
        Part a = new Part(0, 0);
        Part b = new Part(0, 0);
        Map<String, StreamMembership> parts = new LinkedHashMap<>();
        parts.put("ring-0", a);
        parts.put("ring-1", b);
        StreamsMembership group = of(parts);
        assertThat(group.parts()).containsOnlyKeys("ring-0", "ring-1");
        assertThat(group.addLearner(3, "h:1").get(5, TimeUnit.SECONDS)).startsWith("voters=[0,1,2] learners=[3]");
        assertThat(a.asked).containsExactly("ADD_LEARNER 3");
        assertThat(b.asked).containsExactly("ADD_LEARNER 3");
        // One part promotes alone (as parallax admin does part by part): the group does not count 3 a voter yet.
        assertThat(group.parts().get("ring-0").promote(3).get(5, TimeUnit.SECONDS)).contains("voters=[0,1,2,3]");
        assertThat(group.members()).startsWith("voters=[0,1,2] learners=[3]").contains("(ring-0: voters=[0,1,2,3]")
                .contains("; ring-1: voters=[0,1,2] learners=[3]");
        assertThat(group.parts().get("ring-1").promote(3).get(5, TimeUnit.SECONDS)).contains("voters=[0,1,2,3]");
        assertThat(group.members()).startsWith("voters=[0,1,2,3] learners=[]");
    }

    @Test
    @DisplayName("the first refusal stops the change and names the parts that took it; a leader hint is kept")
    void theFirstRefusalStopsTheChange() {
        Part a = new Part(0, 0);
        Part b = new Part(0, 2);
        Map<String, StreamMembership> parts = new LinkedHashMap<>();
        parts.put("ring-0", a);
        parts.put("ring-g", b);
        StreamsMembership group = of(parts);
        assertThatThrownBy(() -> group.remove(1).get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(MembershipAdmin.NotTheLeader.class)
                .hasMessageContaining("ring-g: replica 0 does not lead").hasMessageContaining("(ring-0 took it)")
                .satisfies(e -> assertThat(((MembershipAdmin.NotTheLeader) e).leaderHint()).isEqualTo(2));
        assertThatThrownBy(() -> group.promote(7).get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(MembershipAdmin.MembershipChangeRefused.class).hasMessageStartingWith("ring-0: ")
                .hasMessageNotContaining("took it");
        assertThatThrownBy(() -> new StreamsMembership().remove(1).get(5, TimeUnit.SECONDS)).cause()
                .hasMessageContaining("not started");
        assertThat(new StreamsMembership().members()).contains("not started");
    }

    @Test
    @DisplayName("a transfer hands over every part this replica leads and leaves the others alone; refused if it leads none")
    void aTransferHandsOverThePartsLedHere() throws Exception {
        Part a = new Part(0, 0);
        Part b = new Part(0, 2);
        Part c = new Part(0, 0);
        Map<String, StreamMembership> parts = new LinkedHashMap<>();
        parts.put("ring-0", a);
        parts.put("ring-1", b);
        parts.put("ring-g", c);
        StreamsMembership group = of(parts);
        assertThat(group.transferLeadership(2).get(5, TimeUnit.SECONDS))
                .isEqualTo("ring-0: replica 2 leads; ring-g: replica 2 leads");
        assertThat(b.asked).as("asked, and left alone").containsExactly("TRANSFER 2");
        assertThat(group.transferLeadership(-1).get(5, TimeUnit.SECONDS)).contains("ring-0: replica 1 leads");
        assertThatThrownBy(() -> group.transferLeadership(9).get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(MembershipAdmin.NotTheLeader.class).hasMessageContaining("leads none of")
                .satisfies(e -> assertThat(((MembershipAdmin.NotTheLeader) e).leaderHint()).isEqualTo(2));
        assertThatThrownBy(() -> group.transferLeadership(7).get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(MembershipAdmin.MembershipChangeRefused.class)
                .hasMessageStartingWith("ring-0: replica 7 is not a voter");
        StreamsMembership follower = of(Map.of("ring-1", new Part(0, 2)));
        assertThatThrownBy(() -> follower.transferLeadership(-1).get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(MembershipAdmin.NotTheLeader.class).hasMessageContaining("leads none of [ring-1];");
    }
}
