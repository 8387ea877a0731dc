package dev.parallax.core.replica;

import dev.parallax.core.Command;
import dev.parallax.core.GroupSet;
import dev.parallax.core.batch.BatchBuilder;
import dev.parallax.core.batch.CommandBatch;
import dev.parallax.core.spi.AtomicBroadcast;
import dev.parallax.core.spi.DeliveryListener;
import dev.parallax.core.stage.BoundedQueue;
import dev.parallax.core.stage.Queues;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The batcher with one lane (the classic batcher) and with several (one builder per lane). */
class BatcherStageTest {
    private static final long TIMEOUT = 1_000_000;
    private final BoundedQueue<Command> requests = Queues.mpsc(64);
    private long now;

    @Test
    void oneLaneBatchesByTimeOutThroughThePlainPropose() {
        SingleLane broadcast = new SingleLane();
        BatcherStage batcher = new BatcherStage("b", requests, lane -> new BatchBuilder(1300, TIMEOUT), broadcast, () -> now);
        requests.offer(command(GroupSet.DEFAULT, 1));
        requests.offer(command(GroupSet.of(1), 2));
        batcher.doWork();
        assertThat(broadcast.proposed).isEmpty();
        now += TIMEOUT;
        batcher.doWork();
        assertThat(broadcast.proposed).hasSize(1);
        assertThat(sequences(broadcast.proposed.get(0))).containsExactly(1L, 2L);
    }

    @Test
    void oneLaneHoldsARefusedBatchAndTakesNoRequestUntilItIsTaken() {
        SingleLane broadcast = new SingleLane();
        broadcast.accept = false;
        BatcherStage batcher = new BatcherStage("b", requests, lane -> new BatchBuilder(1300, 0), broadcast, () -> now);
        requests.offer(command(GroupSet.DEFAULT, 1));
        batcher.doWork();
        requests.offer(command(GroupSet.DEFAULT, 2));
        assertThat(batcher.doWork()).isZero();
        assertThat(requests.size()).isEqualTo(1);
        broadcast.accept = true;
        batcher.doWork();
        assertThat(requests.size()).isZero();
        assertThat(broadcast.proposed).hasSize(2);
        assertThat(sequences(broadcast.proposed.get(0))).containsExactly(1L);
        assertThat(sequences(broadcast.proposed.get(1))).containsExactly(2L);
    }

    @Test
    void severalLanesBatchEachLanesCommandsSeparatelyInOrder() {
        Lanes broadcast = new Lanes(3);
        BatcherStage batcher = new BatcherStage("b", requests, lane -> new BatchBuilder(1300, TIMEOUT), broadcast, () -> now);
        requests.offer(command(GroupSet.of(0), 1));
        requests.offer(command(GroupSet.of(1), 2));
        requests.offer(command(GroupSet.of(0, 1), 3));
        requests.offer(command(GroupSet.of(0), 4));
        requests.offer(command(GroupSet.of(1), 5));
        batcher.doWork();
        assertThat(batcher.pendingLanes()).isEqualTo(3);
        now += TIMEOUT;
        batcher.doWork();
        assertThat(batcher.pendingLanes()).isZero();
        assertThat(broadcast.proposed).hasSize(3);
        assertThat(sequences(broadcast.batch(0))).containsExactly(1L, 4L);
        assertThat(sequences(broadcast.batch(1))).containsExactly(2L, 5L);
        assertThat(sequences(broadcast.batch(2))).containsExactly(3L);
    }

    @Test
    void aRefusedLaneHoldsItsBatchStopsIntakeAndTheOtherLanesStillClose() {
        Lanes broadcast = new Lanes(2);
        broadcast.refused = 0;
        BatcherStage batcher = new BatcherStage("b", requests, lane -> new BatchBuilder(1300, TIMEOUT), broadcast, () -> now);
        requests.offer(command(GroupSet.of(0), 1));
        requests.offer(command(GroupSet.of(0, 1), 2));
        batcher.doWork();
        now += TIMEOUT;
        batcher.doWork();
        // Lane 0's batch is held, lane 1's went out.
        assertThat(broadcast.proposed).extracting(p -> p.lane).containsExactly(1);
        requests.offer(command(GroupSet.of(0, 1), 3));
        batcher.doWork();
        assertThat(requests.size()).as("no request is taken while a lane holds a batch").isEqualTo(1);
        broadcast.refused = -1;
        batcher.doWork();
        now += TIMEOUT;
        batcher.doWork();
        assertThat(requests.size()).isZero();
        assertThat(broadcast.proposed).extracting(p -> p.lane).containsExactly(1, 0, 1);
        assertThat(sequences(broadcast.batch(0))).containsExactly(1L);
        assertThat(broadcast.proposed.get(2).commands).extracting(c -> c.id().sequence()).containsExactly(3L);
    }

    @Test
    void eagernessIsAskedPerLane() {
        Lanes broadcast = new Lanes(2);
        broadcast.eagerLane = 1;
        BatcherStage batcher = new BatcherStage("b", requests, lane -> new BatchBuilder(1300, TIMEOUT), broadcast, () -> now);
        requests.offer(command(GroupSet.of(0), 1));
        requests.offer(command(GroupSet.of(0, 1), 2));
        batcher.doWork();
        assertThat(broadcast.proposed).extracting(p -> p.lane).containsExactly(1);
        assertThat(batcher.pendingLanes()).isEqualTo(1);
    }

    private static Command command(GroupSet groups, long sequence) {
        return Command.of(7, groups, sequence, new byte[]{(byte) sequence});
    }

    private static List<Long> sequences(List<Command> batch) {
        return batch.stream().map(c -> c.id().sequence()).toList();
    }

    /** A one-lane broadcast that only implements the plain propose. */
    private static final class SingleLane implements AtomicBroadcast {
        final List<List<Command>> proposed = new ArrayList<>();
        boolean accept = true;

        @Override
        public void start(DeliveryListener listener) {
        }

        @Override
        public boolean propose(ByteBuffer value) {
            if (accept) {
                proposed.add(CommandBatch.decode(value));
            }
            return accept;
        }

        @Override
        public int redirectHint() {
            return ANY_REPLICA;
        }

        @Override
        public boolean readyForProposal() {
            return false;
        }

        @Override
        public void close() {
        }
    }

    private record Proposal(int lane, List<Command> commands) {
    }

    /** Lanes: group g &lt; lanes-1 alone goes to lane g, anything else to the last lane. */
    private static final class Lanes implements AtomicBroadcast {
        final int lanes;
        final List<Proposal> proposed = new ArrayList<>();
        int refused = -1;
        int eagerLane = -1;

        Lanes(int lanes) {
            this.lanes = lanes;
        }

        List<Command> batch(int lane) {
            return proposed.stream().filter(p -> p.lane == lane).findFirst().orElseThrow().commands;
        }

        @Override
        public int lanes() {
            return lanes;
        }

        @Override
        public int laneOf(GroupSet groups) {
            return groups.size() == 1 && groups.first() < lanes - 1 ? groups.first() : lanes - 1;
        }

        @Override
        public boolean propose(int lane, ByteBuffer value) {
            if (lane == refused) {
                return false;
            }
            proposed.add(new Proposal(lane, CommandBatch.decode(value)));
            return true;
        }

        @Override
        public boolean readyForProposal(int lane) {
            return lane == eagerLane;
        }

        @Override
        public void start(DeliveryListener listener) {
        }

        @Override
        public boolean propose(ByteBuffer value) {
            throw new AssertionError("a lane-aware batcher proposes into lanes");
        }

        @Override
        public int redirectHint() {
            return ANY_REPLICA;
        }

        @Override
        public void close() {
        }
    }
}
