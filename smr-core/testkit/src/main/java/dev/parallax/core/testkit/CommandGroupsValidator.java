package dev.parallax.core.testkit;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.CommandRouter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * Checks a C-G function against a service's dependency relation: P-SMR executes a command on the
 * workers of its groups only, so any two DEPENDENT commands must share at least one group (then
 * they are never executed concurrently), while independent ones should share none, for parallelism
 * (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.3.2, "C-G: mapping commands to destination
 * groups", and the C-Dep relation it refines). Generic: the C-G is any {@link CommandRouter}, the
 * relation any {@code BiPredicate} over command bytes.
 *
 * <p>{@link #check} routes every command once, then tests every unordered pair {@code i < j} with
 * {@code dependent.test(commands[i], commands[j])} (the relation is taken as symmetric: each pair is
 * asked once, the earlier command first) and reports each dependent pair whose group sets are
 * disjoint. O(n²) calls of the relation: meant for a few hundred to a few thousand commands.
 *
 * <p>Both the router and the relation get a fresh {@link ByteBuffer#duplicate() duplicate} of each
 * command, so neither can disturb the other's view. A router that throws {@link
 * IllegalArgumentException} (allowed by its contract: the invoker then fails that command, which is
 * never delivered) leaves that command out of every pair and counts it in {@link
 * Report#unroutable()}; a router that returns null or moves the buffer's position or limit breaks
 * its contract, which {@link Report#routerErrors()} records.
 *
 * <p>Stateless and thread-safe; {@link #check} runs on the calling thread, never blocks, and calls
 * the router and the relation only from that thread.
 */
public final class CommandGroupsValidator {
    /** The most violations a report keeps (it counts all of them). */
    public static final int MAX_KEPT = 1000;

    private CommandGroupsValidator() {
    }

    /**
     * Two dependent commands with disjoint groups.
     *
     * @param first        index of the earlier command in the checked list
     * @param second       index of the later one
     * @param firstGroups  the groups the router gave the earlier command
     * @param secondGroups the groups it gave the later one
     * @param description  a readable account, e.g. {@code "#3 MSET[4 args] -> {1} and #7 GET[1 args]
     *                     -> {2} depend on each other but share no group"}
     */
    public record Violation(int first, int second, GroupSet firstGroups, GroupSet secondGroups, String description) {
        @Override
        public String toString() {
            return description;
        }
    }

    /**
     * What a check found.
     *
     * @param commands                     how many commands were checked
     * @param unroutable                   how many the router rejected with {@link IllegalArgumentException}
     * @param dependentPairs               how many pairs the relation calls dependent
     * @param independentPairsSharingGroup how many independent pairs share a group anyway: not an
     *                                     error, but parallelism lost
     * @param violationCount               how many dependent pairs share no group
     * @param violations                   the first {@link #MAX_KEPT} of them, in pair order
     * @param routerErrors                 breaches of the router's contract (null result, buffer moved)
     */
    public record Report(int commands, int unroutable, long dependentPairs, long independentPairsSharingGroup,
                         long violationCount, List<Violation> violations, List<String> routerErrors) {
        public Report {
            violations = List.copyOf(violations);
            routerErrors = List.copyOf(routerErrors);
        }

        /** No violation and no router error. */
        public boolean passed() {
            return violationCount == 0 && routerErrors.isEmpty();
        }

        /** A summary: the counts, then the first few violations and router errors, one per line. */
        public String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append(commands).append(" commands (").append(unroutable).append(" unroutable), ")
                    .append(dependentPairs).append(" dependent pairs, ").append(violationCount)
                    .append(" of them with disjoint groups; ").append(independentPairsSharingGroup)
                    .append(" independent pairs share a group");
            violations.stream().limit(10).forEach(v -> sb.append('\n').append(v.description()));
            if (violationCount > 10) {
                sb.append("\n... ").append(violationCount - 10).append(" more");
            }
            routerErrors.stream().limit(10).forEach(e -> sb.append("\nrouter error: ").append(e));
            return sb.toString();
        }
    }

    /** {@link #check(CommandRouter, BiPredicate, List, Function)} describing commands by their first bytes in hex. */
    public static Report check(CommandRouter router, BiPredicate<ByteBuffer, ByteBuffer> dependent,
                               List<ByteBuffer> commands) {
        return check(router, dependent, commands, CommandGroupsValidator::hex);
    }

    /**
     * Routes each command with {@code router} and checks every pair against {@code dependent} (see
     * the class comment). The commands' buffers are read between position and limit and never moved.
     *
     * @param describe names a command in the violations' descriptions (gets a duplicate)
     */
    public static Report check(CommandRouter router, BiPredicate<ByteBuffer, ByteBuffer> dependent,
                               List<ByteBuffer> commands, Function<ByteBuffer, String> describe) {
        Objects.requireNonNull(router, "router");
        Objects.requireNonNull(dependent, "dependent");
        Objects.requireNonNull(describe, "describe");
        int n = commands.size();
        GroupSet[] groups = new GroupSet[n];
        List<String> routerErrors = new ArrayList<>();
        int unroutable = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer view = commands.get(i).duplicate();
            int position = view.position();
            int limit = view.limit();
            try {
                groups[i] = router.route(view);
            } catch (IllegalArgumentException e) {
                unroutable++;
                continue;
            }
            if (groups[i] == null) {
                routerErrors.add("#" + i + " " + describe.apply(commands.get(i).duplicate()) + " routed to null");
            } else if (view.position() != position || view.limit() != limit) {
                routerErrors.add("#" + i + " " + describe.apply(commands.get(i).duplicate())
                        + ": route moved the buffer from " + position + ".." + limit + " to "
                        + view.position() + ".." + view.limit());
            }
        }
        long dependentPairs = 0;
        long sharingIndependent = 0;
        long violationCount = 0;
        List<Violation> violations = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (groups[i] == null) {
                continue;
            }
            for (int j = i + 1; j < n; j++) {
                if (groups[j] == null) {
                    continue;
                }
                boolean shared = groups[i].intersects(groups[j]);
                if (!dependent.test(commands.get(i).duplicate(), commands.get(j).duplicate())) {
                    if (shared) {
                        sharingIndependent++;
                    }
                    continue;
                }
                dependentPairs++;
                if (!shared) {
                    violationCount++;
                    if (violations.size() < MAX_KEPT) {
                        violations.add(new Violation(i, j, groups[i], groups[j], "#" + i + " "
                                + describe.apply(commands.get(i).duplicate()) + " -> " + groups[i] + " and #" + j
                                + " " + describe.apply(commands.get(j).duplicate()) + " -> " + groups[j]
                                + " depend on each other but share no group"));
                    }
                }
            }
        }
        return new Report(n, unroutable, dependentPairs, sharingIndependent, violationCount, violations, routerErrors);
    }

    /** The command's first 16 bytes in hex, and its length. */
    private static String hex(ByteBuffer command) {
        StringBuilder sb = new StringBuilder("[");
        int end = Math.min(command.limit(), command.position() + 16);
        for (int i = command.position(); i < end; i++) {
            sb.append(String.format("%02x", command.get(i) & 0xff));
        }
        if (end < command.limit()) {
            sb.append("..");
        }
        return sb.append(" (").append(command.remaining()).append(" bytes)]").toString();
    }
}
