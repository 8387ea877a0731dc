package dev.parallax.examples.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The membership steps of {@code parallax chaos --membership}, between its kills and partitions
 * ({@link NetworkFaults}): each step replaces a random voter by a fresh replica
 * ({@link ClusterMembership#replace}: new id, empty data directory, {@code --join}, added as a
 * learner, then {@code replace}; the old one stopped and its data directory deleted; any voter
 * but the last of the cluster file's, {@link ClusterMembership#replaceable}), then hands
 * leadership to a random other voter ({@link ClusterMembership#transfer}; under Multi-Ring
 * every ring's coordination); only the transfer once the joining ids are used up. A step that does
 * not complete is printed and counted ({@link #failed}), which fails the run.
 *
 * <p>Runs on the chaos loop's thread; blocks for each step.
 */
final class MembershipNemesis implements NetworkFaults.Nemesis {
    private final PrintStream out;
    private final ClusterMembership members;
    private final DoubleSupplier elapsed;
    private int replacements;
    private int transfers;
    private int failed;

    /** @param elapsed seconds since the load started, for the printed lines */
    MembershipNemesis(PrintStream out, ClusterMembership members, DoubleSupplier elapsed) {
        this.out = out;
        this.members = members;
        this.elapsed = elapsed;
    }

    /**
     * Why {@code parallax chaos} or {@code parallax demo} cannot run {@code --membership} with these
     * options, or null: only
     * the key-value store over one group, ordered by Multi-Paxos, S-Paxos, U-Ring, M-Ring or Multi-Ring (the
     * chaos cluster file then sets {@code ring.member.ids}, {@link ChaosCommand}), changes its
     * members at run time, and a joining replica of a TLS cluster would need a certificate of its own.
     */
    static String refusal(ServiceOptions service, RuntimeOptions runtime) {
        Orderings ordering = ordering(runtime);
        if (!ordering.transfersLeadership()) {
            return "--membership: ordering " + ordering.configName() + " does not support membership changes at run time "
                    + "(multi-paxos, s-paxos, u-ring, m-ring and multi-ring do)";
        }
        if (service.volery() || service.kvPartitioned(runtime)) {
            return "--membership: only the key-value store over one group changes its members at run time";
        }
        return service.tls ? "--membership: not with --tls (a joining replica needs a certificate of its own)" : null;
    }

    private static Orderings ordering(RuntimeOptions runtime) {
        return runtime.ordering == null ? Orderings.MULTI_PAXOS : runtime.ordering;
    }

    /**
     * One membership step: a random replaceable voter replaced (while joining ids remain), then
     * leadership handed to a random voter other than the leader (the new one among them). Both in
     * one step, so that every run with a membership step has both kinds, however slow the machine.
     */
    @Override
    public void step(Random rnd) throws InterruptedException {
        if (members.canReplace()) {
            int[] replaceable = members.replaceable();
            int old = replaceable[rnd.nextInt(replaceable.length)];
            try {
                ClusterMembership.Replacement r = members.replace(old);
                replacements++;
                out.printf("  %6.1f s  replaced voter %d by replica %d (started, caught up and voting in %d ms: process ready"
                                + " at %d ms, learner at %d ms; in effect at every voter at %d ms, executed at %d ms, old"
                                + " replica stopped at %d ms); voters %s%n", elapsed.getAsDouble(), old, r.newId(),
                        r.catchUp().toMillis(), since(r, r.readyAt()), since(r, r.addedAt()), since(r, r.inEffectAt()),
                        since(r, r.executedAt()), since(r, r.stoppedAt()), Arrays.toString(members.voters()));
            } catch (IOException e) {
                failed++;
                out.printf("  %6.1f s  FAILED to replace voter %d: %s%n", elapsed.getAsDouble(), old, e.getMessage());
                return;
            }
        }
        int[] voters = members.voters();
        int leader = members.awaitLeader(Duration.ofSeconds(10));
        int to = voters[rnd.nextInt(voters.length)];
        if (to == leader) {
            to = voters[(Arrays.binarySearch(voters, to) + 1) % voters.length];
        }
        try {
            ClusterMembership.Transfer t = members.transfer(to);
            transfers++;
            out.printf("  %6.1f s  leadership handed from replica %d to replica %d in %d ms%n", elapsed.getAsDouble(), t.from(),
                    t.to(), TimeUnit.NANOSECONDS.toMillis(t.doneAt() - t.askedAt()));
        } catch (IOException e) {
            failed++;
            out.printf("  %6.1f s  FAILED to hand leadership to replica %d: %s%n", elapsed.getAsDouble(), to, e.getMessage());
        }
    }

    private static long since(ClusterMembership.Replacement r, long at) {
        return TimeUnit.NANOSECONDS.toMillis(at - r.startedAt());
    }

    int replacements() {
        return replacements;
    }

    int transfers() {
        return transfers;
    }

    /** Steps that did not complete. */
    int failed() {
        return failed;
    }
}
