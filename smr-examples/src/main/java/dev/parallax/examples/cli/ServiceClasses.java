package dev.parallax.examples.cli;

import dev.parallax.scheduler.CommandClassifier;
import dev.parallax.scheduler.classmap.ClassMap;

import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * What a parallel executor needs to know about the service a replica runs: its request classes
 * (seed 001 §4.1, Definition 2), as a class-to-threads map over any number of workers and a
 * classifier of commands into it. A service without classes can only run under the sequential
 * executor ({@link Executions#SEQUENTIAL}); {@link Executions#create} rejects the others for it,
 * naming the service.
 *
 * <p>Immutable; thread-safe if the classifier is.
 *
 * @param service  the service's name, for messages
 * @param classMap the class map over {@code n} workers, or null if the service has no classes
 * @param classifier the class of each command in that map, or null if the service has no classes
 */
public record ServiceClasses(String service, IntFunction<ClassMap> classMap, CommandClassifier classifier) {

    /** @throws IllegalArgumentException if only one of {@code classMap} and {@code classifier} is given */
    public ServiceClasses {
        Objects.requireNonNull(service, "service");
        if ((classMap == null) != (classifier == null)) {
            throw new IllegalArgumentException("a service has both a class map and a classifier, or neither");
        }
    }

    /** A service whose commands all conflict, as far as anyone knows: sequential execution only. */
    public static ServiceClasses none(String service) {
        return new ServiceClasses(service, null, null);
    }

    /** Whether the service has request classes (so that the parallel executors can run it). */
    public boolean hasClasses() {
        return classMap != null;
    }

    /** The class map over {@code workers} threads, if the service has classes. */
    public Optional<ClassMap> classMapOver(int workers) {
        return hasClasses() ? Optional.of(classMap.apply(workers)) : Optional.empty();
    }
}
