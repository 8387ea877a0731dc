package dev.parallax.core.testkit;

import java.util.List;
import java.util.function.Predicate;

/**
 * A targeted loss rule of a {@link Simulation}: lose what {@code from} sends {@code to} that
 * {@code which} accepts. Deciding draws no random number.
 *
 * <p>Immutable; its predicate is called only on the simulation's single thread.
 */
record DropRule<M>(int from, int to, Predicate<? super M> which) {

    /** Whether any of {@code rules} loses {@code message} from {@code from} to {@code to}. */
    static <M> boolean matches(List<DropRule<M>> rules, int from, int to, M message) {
        for (DropRule<M> r : rules) {
            if (r.from() == from && r.to() == to && r.which().test(message)) {
                return true;
            }
        }
        return false;
    }
}
