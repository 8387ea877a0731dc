package dev.parallax.scheduler;

import dev.parallax.core.spi.CommandRouter;
import dev.parallax.scheduler.classmap.ClassMap;

import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * What a parallel executor needs to know about the service a replica runs: its request classes
 * (seed 001 §4.1, Definition 2), as a class-to-threads map over any number of workers and a
 * classifier of commands into it, for the scheduling executors; and whether it is partitioned by
 * group, for P-SMR (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6 §6.3.2: its clients address
 * each command to the groups of a C-G function, and its state machine lets commands of disjoint
 * groups execute concurrently). A service with neither can only run under the sequential executor;
 * the other executions' providers ({@link SchedulerExecutions}) reject it, naming the service. An
 * embedder hands one to {@code ExecutionProvider.Context} as the trait {@code ServiceClasses.class}.
 *
 * <p>Immutable; thread-safe if the classifier is.
 *
 * @param service          the service's name, for messages
 * @param classMap         the class map over {@code n} workers, or null if the service has no classes
 * @param classifier       the class of each command in that map, or null if the service has no classes
 * @param groupsOf         the service's C-G function over {@code n} groups, if P-SMR
 *                         ({@code execution=p-smr}) may run it: its commands carry the groups of that
 *                         function and its state machine (built for the cluster's groups) is safe when
 *                         commands of disjoint groups run concurrently; null if not. P-SMR checks each
 *                         command's groups against it before running the command
 */
public record ServiceClasses(String service, IntFunction<ClassMap> classMap, CommandClassifier classifier,
                             IntFunction<CommandRouter> groupsOf) {

    /** @throws IllegalArgumentException if only one of {@code classMap} and {@code classifier} is given */
    public ServiceClasses {
        Objects.requireNonNull(service, "service");
        if ((classMap == null) != (classifier == null)) {
            throw new IllegalArgumentException("a service has both a class map and a classifier, or neither");
        }
    }

    /** A service with request classes that P-SMR may not run (not partitioned by group). */
    public ServiceClasses(String service, IntFunction<ClassMap> classMap, CommandClassifier classifier) {
        this(service, classMap, classifier, null);
    }

    /** A service whose commands all conflict, as far as anyone knows: sequential execution only. */
    public static ServiceClasses none(String service) {
        return new ServiceClasses(service, null, null, null);
    }

    /** Whether P-SMR may run the service: it has a C-G function and a state machine partitioned by it. */
    public boolean groupPartitioned() {
        return groupsOf != null;
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
