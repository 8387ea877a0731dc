package dev.parallax.ringpaxos.sim;

import dev.parallax.core.testkit.Simulation;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.RingConfig;
import dev.parallax.ringpaxos.RingPaxosCore;

/**
 * Checks the memory and pipeline bounds on every member after every event (seed 003
 * (Ring Paxos) §3.3.6 flow control):
 * <ul>
 *   <li>the window is within {@code [mring.window.min, ring.window]} (M6 AIMD; U-Ring: the fixed
 *       window) and a coordinator has at most {@code ring.window} instances open (C3);</li>
 *   <li>M-Ring: a learner holds at most {@code mring.learner.buffer} decided instances ahead of its
 *       decided prefix and as many bodies for id-only decisions (C5), so
 *       {@code learnerBuffered()} (their sum) stays within twice that, and the bytes within twice
 *       {@code mring.learner.buffer.bytes} (U-Ring bounds its learners by the backlog rule
 *       below; its largest buffer is only reported);</li>
 *   <li>U-Ring (§3.3.6 (b)): an instance is opened only below
 *       {@code minDelivered(ring) + ring.max.backlog}; checked against the most any member ever
 *       delivered, which no member's report can exceed.</li>
 * </ul>
 *
 * <p>Owned by the simulation thread; never blocks.
 */
final class BoundsMonitor {
    private final RingConfig config;
    private long maxDelivered;
    private long maxOutstanding;
    private long maxLearnerBuffered;
    private long minWindow = Long.MAX_VALUE;
    private long checks;

    BoundsMonitor(RingConfig config) {
        this.config = config;
    }

    /**
     * Checks every up member of {@code sim} (ids {@code 0..replicas-1}).
     *
     * @throws AssertionError if a member exceeds a bound
     */
    void check(Simulation<Object> sim, int replicas) {
        for (int r = 0; r < replicas; r++) {
            if (sim.isUp(r)) {
                RingPaxosCore core = sim.<RingSimReplica>node(r).core();
                if (core != null) {
                    check(r, core);
                }
            }
        }
    }

    /** Checks one member's core. */
    void check(int member, RingPaxosCore core) {
        checks++;
        int window = core.window();
        int min = config.kind() == Ring.Kind.M_RING ? config.mringWindowMin() : config.window();
        if (window < Math.min(min, config.window()) || window > config.window()) {
            throw new AssertionError("bounds: member " + member + " has window " + window + " outside ["
                    + min + ", " + config.window() + "]");
        }
        minWindow = Math.min(minWindow, window);
        if (core.isCoordinator()) {
            long open = core.outstanding();
            maxOutstanding = Math.max(maxOutstanding, open);
            if (open > config.window()) {
                throw new AssertionError("bounds: coordinator " + member + " has " + open + " instances open, above"
                        + " ring.window " + config.window());
            }
        }
        long buffered = core.learnerBuffered();
        maxLearnerBuffered = Math.max(maxLearnerBuffered, buffered);
        if (config.kind() == Ring.Kind.M_RING) {
            // learnerBuffered() = decided instances held ahead of the decided prefix + bodies kept for
            // id-only decisions; each part is bounded by mring.learner.buffer (.bytes).
            if (buffered > 2L * config.mringLearnerBuffer()) {
                throw new AssertionError("bounds: member " + member + " buffers " + buffered + " instances and bodies"
                        + " ahead of its decided prefix, above 2 x mring.learner.buffer " + config.mringLearnerBuffer());
            }
            if (core.learnerBufferedBytes() > 2 * config.mringLearnerBufferBytes()) {
                throw new AssertionError("bounds: member " + member + " buffers " + core.learnerBufferedBytes()
                        + " bytes, above 2 x mring.learner.buffer.bytes " + config.mringLearnerBufferBytes());
            }
        }
        maxDelivered = Math.max(maxDelivered, core.delivered());
    }

    /**
     * Coordinator {@code member} opened {@code instance}: U-Ring's backlog bound.
     *
     * @throws AssertionError if it lies at or above what any member delivered plus {@code ring.max.backlog}
     */
    void opened(int member, long instance) {
        if (config.kind() == Ring.Kind.U_RING && instance >= maxDelivered + config.maxBacklog()) {
            throw new AssertionError("bounds: coordinator " + member + " opened instance " + instance
                    + ", at or above the most any member delivered (" + maxDelivered + ") + ring.max.backlog "
                    + config.maxBacklog());
        }
    }

    /** Some member delivered every instance below {@code next}. */
    void delivered(long next) {
        maxDelivered = Math.max(maxDelivered, next);
    }

    /** The smallest window any member reported. */
    long minWindow() {
        return minWindow;
    }

    /** The most instances a coordinator had open. */
    long maxOutstanding() {
        return maxOutstanding;
    }

    /** The most instances a learner buffered ahead of its decided prefix. */
    long maxLearnerBuffered() {
        return maxLearnerBuffered;
    }

    /** Member checks done. */
    long checks() {
        return checks;
    }
}
