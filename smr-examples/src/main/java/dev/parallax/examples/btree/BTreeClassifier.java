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

    /** @throws IllegalArgumentException for an empty command */
    @Override
    public int classify(Command command) {
        if (command.size() == 0) {
            throw new IllegalArgumentException("empty command");
        }
        byte op = command.payload().get(0);
        return op == BTreeCommands.GET || op == BTreeCommands.RANGE ? ReadWriteClasses.READ : ReadWriteClasses.WRITE;
    }
}
