package dev.parallax.examples.btree;

import dev.parallax.core.Command;
import dev.parallax.scheduler.CommandClassifier;
import dev.parallax.scheduler.classmap.ClassMap;
import dev.parallax.scheduler.classmap.ReadWriteClasses;

/**
 * Classes of {@link BTreeStore} commands for early scheduling: GET and RANGE are reads
 * ({@link ReadWriteClasses#READ}, CONC), the others writes ({@link ReadWriteClasses#WRITE}, SEQ),
 * since a write may split or merge nodes anywhere on its path.
 *
 * <p>Stateless and thread-safe.
 */
public final class BTreeClassifier implements CommandClassifier {

    /** The read/write map over {@code threads} workers. */
    public static ClassMap classMap(int threads) {
        return ReadWriteClasses.classMap(threads);
    }

    /**
     * @throws IllegalArgumentException for an empty command; an executor answers it with the error
     *                                  result {@code "unclassifiable command:
     *                                  IllegalArgumentException: empty command"} and goes on. A
     *                                  non-empty command with an unknown operation is classified as a
     *                                  write, so that the store itself rejects it (with the same
     *                                  error sequential execution gives).
     */
    @Override
    public int classify(Command command) {
        if (command.size() == 0) {
            throw new IllegalArgumentException("empty command");
        }
        byte op = command.payload().get(0);
        return op == BTreeCommands.GET || op == BTreeCommands.RANGE ? ReadWriteClasses.READ : ReadWriteClasses.WRITE;
    }
}
