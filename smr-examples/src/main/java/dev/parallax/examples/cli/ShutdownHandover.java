package dev.parallax.examples.cli;

import dev.parallax.core.spi.MembershipAdmin;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What {@code parallax replica} does first when it is stopped (SIGTERM, Ctrl-C): a replica that
 * leads an ordering that changes its members at run time (one with a {@link MembershipAdmin}:
 * Multi-Paxos, S-Paxos, U-Ring, M-Ring; under Multi-Ring, every ring it coordinates) hands its
 * leadership to the best caught-up voter ({@link MembershipAdmin#transferLeadership
 * transferLeadership(-1)}) and waits for the new leader at most {@link #timeout} before it closes.
 * The transfer is Raft's TimeoutNow (thesis §3.10; a ring's {@code HandOver}): the target starts its
 * view or round at once, with no failure detection, pre-vote or stickiness in the way, so a rolling
 * restart has no election gap. A follower, an ordering without {@link MembershipAdmin}, a zero
 * timeout, a refused or late transfer: the replica stops as before, and the others elect a leader
 * after their suspect timeout.
 *
 * <p>Stateless; {@link #handOver} blocks its caller (the shutdown hook) up to the timeout.
 */
final class ShutdownHandover {
    private ShutdownHandover() {
    }

    /**
     * How long a stopping leader of {@code file}'s cluster waits for its successor: the file's
     * {@code shutdown.handover.ms} ({@link ExamplesKeys#SHUTDOWN_HANDOVER}), else twice the
     * ordering's suspect timeout ({@link Orderings#suspectKey()}: a transfer that has not ended
     * within one is abandoned by the leader; the second covers the new leader's Phase 1).
     *
     * @throws IllegalArgumentException if a key's value is malformed
     */
    static Duration timeout(ClusterFile file) {
        Long millis = file.settings().get(ExamplesKeys.SHUTDOWN_HANDOVER);
        return millis != null ? Duration.ofMillis(millis) : file.settings().get(file.ordering().suspectKey()).multipliedBy(2);
    }

    /**
     * Hands leadership over if replica {@code self} leads ({@code leaderHint == self}; where the
     * membership has parts, Multi-Ring's rings, if it leads any part) and {@code admin} is present,
     * waiting at most {@code timeout}; blocks for that wait.
     *
     * @return the line to print, saying what happened; null if nothing was tried (not the leader,
     *         no {@link MembershipAdmin}, or a zero timeout)
     */
    static String handOver(int self, int leaderHint, Optional<MembershipAdmin> admin, Duration timeout) {
        if (admin.isEmpty() || timeout.isZero() || timeout.isNegative()) {
            return null;
        }
        boolean parts = !admin.get().parts().isEmpty();
        if (leaderHint != self && !parts) {
            return null;
        }
        long start = System.nanoTime();
        try {
            CompletableFuture<String> transfer = admin.get().transferLeadership(-1);
            String result = transfer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return String.format("replica %d handed its leadership over before stopping, in %d ms: %s", self,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), result);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (parts && cause instanceof MembershipAdmin.NotTheLeader) {
                return null;    // it leads no part: nothing to hand over
            }
            return "replica " + self + " stops without handing its leadership over: " + cause.getMessage();
        } catch (TimeoutException e) {
            return "replica " + self + " stops without handing its leadership over: no new leader within " + timeout.toMillis()
                    + " ms (shutdown.handover.ms); the others elect one after their suspect timeout";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "replica " + self + " stops without handing its leadership over: interrupted";
        } catch (RuntimeException e) {
            return "replica " + self + " stops without handing its leadership over: " + e;
        }
    }
}
