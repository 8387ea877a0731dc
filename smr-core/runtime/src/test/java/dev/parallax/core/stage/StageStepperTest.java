package dev.parallax.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StageStepperTest {

    /** Moves up to {@code batch} items from {@code in} to {@code out}, never more than fit. */
    private static final class TransformStage implements Stage {
        private final String name;
        private final BoundedQueue<Integer> in;
        private final BoundedQueue<Integer> out;
        private final IntUnaryOperator function;
        private final int batch;
        private final List<String> trace;

        TransformStage(String name, BoundedQueue<Integer> in, BoundedQueue<Integer> out, IntUnaryOperator function,
                int batch, List<String> trace) {
            this.name = name;
            this.in = in;
            this.out = out;
            this.function = function;
            this.batch = batch;
            this.trace = trace;
        }

        @Override
        public int doWork() {
            // This stage is the only producer of out, so its free room cannot shrink under us.
            int limit = Math.min(batch, out.remainingCapacity());
            int moved = in.drain(x -> {
                if (!out.offer(function.applyAsInt(x))) {
                    throw new AssertionError("output full despite reserved room");
                }
            }, limit);
            trace.add(name + ":" + moved);
            return moved;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<BoundedQueue<Integer>> inputQueues() {
            return List.of(in);
        }
    }

    /** Collects whatever reaches it. */
    private static final class SinkStage implements Stage {
        private final BoundedQueue<Integer> in;
        private final List<Integer> received = new ArrayList<>();
        private final List<String> trace;
        private final List<String> lifecycle;

        SinkStage(BoundedQueue<Integer> in, List<String> trace, List<String> lifecycle) {
            this.in = in;
            this.trace = trace;
            this.lifecycle = lifecycle;
        }

        @Override
        public int doWork() {
            int n = in.drain(received::add, 5);
            trace.add("sink:" + n);
            return n;
        }

        @Override
        public String name() {
            return "sink";
        }

        @Override
        public void onStart() {
            lifecycle.add("start");
        }

        @Override
        public void onClose() {
            lifecycle.add("close");
        }
    }

    private record Pipeline(BoundedQueue<Integer> source, StageStepper stepper, SinkStage sink, List<String> trace,
            List<String> lifecycle) {
    }

    private static Pipeline pipeline() {
        List<String> trace = new ArrayList<>();
        List<String> lifecycle = new ArrayList<>();
        BoundedQueue<Integer> source = Queues.mpsc(1024);
        BoundedQueue<Integer> doubled = Queues.spsc(16);
        BoundedQueue<Integer> incremented = Queues.disruptor(8, false);
        TransformStage doubler = new TransformStage("double", source, doubled, x -> 2 * x, 32, trace);
        TransformStage incrementer = new TransformStage("inc", doubled, incremented, x -> x + 1, 7, trace);
        SinkStage sink = new SinkStage(incremented, trace, lifecycle);
        return new Pipeline(source, StageStepper.of(doubler, incrementer, sink), sink, trace, lifecycle);
    }

    @Test
    void aThreeStagePipelineRunsToIdleDeterministically() {
        Pipeline first = pipeline();
        Pipeline second = pipeline();
        for (int i = 0; i < 1000; i++) {
            first.source().offer(i);
            second.source().offer(i);
        }

        StageStepper.Result result = first.stepper().runUntilIdle(10_000);
        StageStepper.Result again = second.stepper().runUntilIdle(10_000);

        assertThat(result.idle()).isTrue();
        assertThat(result.work()).isEqualTo(3 * 1000);
        assertThat(first.sink().received).isEqualTo(IntStream.range(0, 1000).map(x -> 2 * x + 1).boxed().toList());
        // The sink takes at most 5 per round, so at least 200 rounds, plus the final idle one.
        assertThat(result.rounds()).isGreaterThan(200);
        assertThat(again).isEqualTo(result);
        assertThat(second.trace()).isEqualTo(first.trace());
        assertThat(second.sink().received).isEqualTo(first.sink().received);
        assertThat(first.trace().subList(first.trace().size() - 3, first.trace().size()))
                .containsExactly("double:0", "inc:0", "sink:0");
    }

    @Test
    void theRoundLimitStopsABusyPipeline() {
        Pipeline pipeline = pipeline();
        for (int i = 0; i < 100; i++) {
            pipeline.source().offer(i);
        }
        StageStepper.Result limited = pipeline.stepper().runUntilIdle(3);
        assertThat(limited.idle()).isFalse();
        assertThat(limited.rounds()).isEqualTo(3);
        assertThat(pipeline.trace()).hasSize(9);
        // Round 1: double moves 16 (room in doubled), inc moves 7, sink moves 5.
        assertThat(pipeline.trace().subList(0, 3)).containsExactly("double:16", "inc:7", "sink:5");
        long traced = pipeline.trace().stream().mapToLong(t -> Long.parseLong(t.substring(t.indexOf(':') + 1))).sum();
        assertThat(limited.work()).isEqualTo(traced);
        assertThat(pipeline.stepper().runUntilIdle(10_000).idle()).isTrue();
        assertThat(pipeline.sink().received).hasSize(100);
    }

    @Test
    void startsStagesBeforeTheFirstRoundAndClosesThemOnce() {
        Pipeline pipeline = pipeline();
        assertThat(pipeline.lifecycle()).isEmpty();
        assertThat(pipeline.stepper().step()).isZero();
        assertThat(pipeline.lifecycle()).containsExactly("start");
        pipeline.stepper().step();
        assertThat(pipeline.lifecycle()).containsExactly("start");
        pipeline.stepper().close();
        pipeline.stepper().close();
        assertThat(pipeline.lifecycle()).containsExactly("start", "close");
        assertThatThrownBy(pipeline.stepper()::step).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void exceptionsPropagateToTheCaller() {
        Stage failing = new Stage() {
            @Override
            public int doWork() {
                throw new IllegalStateException("stage bug");
            }

            @Override
            public String name() {
                return "failing";
            }
        };
        StageStepper stepper = StageStepper.of(failing);
        assertThatThrownBy(stepper::step).isInstanceOf(IllegalStateException.class).hasMessage("stage bug");
        assertThatThrownBy(() -> stepper.runUntilIdle(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
