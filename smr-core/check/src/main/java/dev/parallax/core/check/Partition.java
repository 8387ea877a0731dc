package dev.parallax.core.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A named sub-history that can be checked on its own (P-compositionality: a history is
 * linearizable iff each partition is, when operations of different partitions commute and touch
 * disjoint state, as the keys of a map do). Immutable and therefore thread-safe.
 *
 * @param label how reports name the partition, e.g. {@code key=k7}
 * @param history the operations of the partition
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
public record Partition<I, O>(String label, History<I, O> history) {

    /**
     * Validates the components.
     *
     * @throws NullPointerException if a component is null
     */
    public Partition {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(history, "history");
    }

    /**
     * The whole history as one partition labelled {@code all}. Thread-safe, non-blocking.
     *
     * @throws NullPointerException if {@code history} is null
     */
    public static <I, O> List<Partition<I, O>> whole(History<I, O> history) {
        return List.of(new Partition<>("all", history));
    }

    /**
     * Groups the operations by {@code key} of their input, one partition per distinct key in order
     * of first appearance, labelled {@code labelPrefix + key}. Thread-safe if {@code key} is;
     * non-blocking.
     *
     * @throws NullPointerException if an argument is null
     */
    public static <I, O> List<Partition<I, O>> byKey(
            History<I, O> history, Function<? super I, ?> key, String labelPrefix) {
        Objects.requireNonNull(labelPrefix, "labelPrefix");
        Map<Object, List<Operation<I, O>>> groups = new LinkedHashMap<>();
        for (Operation<I, O> op : history) {
            groups.computeIfAbsent(key.apply(op.input()), k -> new ArrayList<>()).add(op);
        }
        List<Partition<I, O>> partitions = new ArrayList<>(groups.size());
        for (Map.Entry<Object, List<Operation<I, O>>> group : groups.entrySet()) {
            partitions.add(new Partition<>(labelPrefix + group.getKey(), History.of(group.getValue())));
        }
        return List.copyOf(partitions);
    }
}
