package dev.parallax.core.testkit.smr;

import dev.parallax.core.testkit.Simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Crashes that lose synced records: every replica's storage behaves like a log under
 * {@code SyncPolicy.NONE} that suffers power losses (a crash keeps only what the last clean close
 * forced, which in a simulation is nothing, plus a random prefix of the later records), and a
 * driver crashes and restarts replicas itself. It crashes a replica only when every replica is up
 * and none is still recovering: two replicas amnesiac at once can be unrecoverable for n=3 (the
 * documented liveness cost), which is not what these runs check. Use it with a fault plan whose
 * nemesis does not crash (it may still partition).
 *
 * <p>Not thread-safe: used by the simulation's thread.
 */
public final class AmnesiaPlan {
    private final boolean recover;
    private final long interval;
    private int crashes;

    /**
     * @param recover  whether replicas run amnesia recovery; false only to show that the runs then fail
     * @param interval mean virtual time between the driver's steps
     */
    public AmnesiaPlan(boolean recover, long interval) {
        this.recover = recover;
        this.interval = interval;
    }

    /** Whether the replicas run amnesia recovery. */
    public boolean recover() {
        return recover;
    }

    /** Crashes the driver caused so far. */
    public int crashes() {
        return crashes;
    }

    /** Makes the replicas' storage forget unforced records and starts the crash driver until {@code until}. */
    public void install(Simulation<Object> sim, int replicas, long until) {
        for (int r = 0; r < replicas; r++) {
            sim.storage(r).syncReachesDevice(false);
        }
        SplittableRandom random = sim.random().split();
        step(sim, replicas, until, random);
    }

    private void step(Simulation<Object> sim, int replicas, long until, SplittableRandom random) {
        sim.schedule(interval / 2 + random.nextLong(interval), "amnesia driver", () -> {
            if (sim.now() >= until) {
                return;
            }
            List<Integer> down = new ArrayList<>();
            boolean recovering = false;
            for (int r = 0; r < replicas; r++) {
                if (!sim.isUp(r)) {
                    down.add(r);
                } else if (sim.<SmrNode>node(r).recovering()) {
                    recovering = true;
                }
            }
            if (!down.isEmpty()) {
                sim.restart(down.get(random.nextInt(down.size())));
            } else if (!recovering && random.nextInt(2) == 0) {
                sim.crash(random.nextInt(replicas));
                crashes++;
            }
            step(sim, replicas, until, random);
        });
    }
}
