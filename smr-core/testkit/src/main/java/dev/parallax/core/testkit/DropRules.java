package dev.parallax.core.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The targeted loss rules of one of a {@link Simulation}'s channels (point-to-point messages or
 * datagrams): lose what {@code from} sends {@code to} that a rule's predicate accepts. Deciding
 * draws no random number, so runs whose rules match nothing keep their traces.
 *
 * <p>Confined to the simulation's single thread.
 */
final class DropRules<M> {

    private record Rule<M>(int from, int to, Predicate<? super M> which) {
    }

    private final List<Rule<M>> rules = new ArrayList<>();
    private final String what;

    /** @param what the channel's messages, for the error message ("messages", "datagrams") */
    DropRules(String what) {
        this.what = what;
    }

    /** @throws IllegalArgumentException if either node is unknown or {@code from == to} */
    void add(NodeTable<M> nodes, int from, int to, Predicate<? super M> which) {
        nodes.slot(from);
        nodes.slot(to);
        if (from == to) {
            throw new IllegalArgumentException("a node's " + what + " to itself are never dropped: " + from);
        }
        rules.add(new Rule<>(from, to, Objects.requireNonNull(which, "which")));
    }

    void clear() {
        rules.clear();
    }

    /** Whether a rule loses {@code message} from {@code from} to {@code to}. */
    boolean matches(int from, int to, M message) {
        for (Rule<M> r : rules) {
            if (r.from() == from && r.to() == to && r.which().test(message)) {
                return true;
            }
        }
        return false;
    }
}
