package dev.parallax.scheduler;

import dev.parallax.core.Command;
import dev.parallax.scheduler.classmap.ClassMap;

import java.util.Objects;

/**
 * The conflict relation {@code #_R} of seed 001 §2.3 (Definition 1): two commands conflict when
 * one writes state the other reads or writes. A late-scheduling executor orders conflicting
 * commands by delivery order and runs the others in parallel.
 *
 * <p>Threads: called by the executor's scheduling thread only. Must be deterministic, symmetric
 * and free of side effects.
 */
@FunctionalInterface
public interface ConflictRelation {

    /**
     * Whether {@code earlier} and {@code later} must execute in delivery order.
     *
     * @throws RuntimeException if either command is one the relation cannot handle (malformed); the
     *                          later command then gets the error result {@code "unclassifiable
     *                          command: conflict relation threw <type>: <message>"} and is not
     *                          executed. The executor first compares each new command with
     *                          itself, so a relation that throws whenever it is given a malformed
     *                          command fails the same way on every replica; one that throws only
     *                          for certain pairs does not (which commands are compared depends on
     *                          timing) and breaks replica determinism.
     */
    boolean conflicts(Command earlier, Command later);

    /**
     * The relation that a class map's conflict graph defines: commands conflict when their classes
     * do. The executor classifies each command once, not once per pair.
     */
    static ClassConflictRelation byClass(ClassMap classMap, CommandClassifier classifier) {
        return new ClassConflictRelation(classMap, classifier);
    }

    /**
     * A {@link ConflictRelation} over request classes. Immutable and thread-safe if the classifier
     * is.
     */
    final class ClassConflictRelation implements ConflictRelation {
        private final ClassMap classMap;
        private final CommandClassifier classifier;

        ClassConflictRelation(ClassMap classMap, CommandClassifier classifier) {
            this.classMap = Objects.requireNonNull(classMap, "classMap");
            this.classifier = Objects.requireNonNull(classifier, "classifier");
        }

        /** The class map whose conflict graph this relation uses. */
        public ClassMap classMap() {
            return classMap;
        }

        /** The classifier that maps commands to class indices. */
        public CommandClassifier classifier() {
            return classifier;
        }

        @Override
        public boolean conflicts(Command earlier, Command later) {
            return classMap.conflicts(classifier.classify(earlier), classifier.classify(later));
        }
    }
}
