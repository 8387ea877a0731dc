package dev.parallax.examples.cli;

import dev.parallax.scheduler.ServiceClasses;
import dev.parallax.core.Command;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvStateMachine;
import dev.parallax.scheduler.CommandClassifier;
import dev.parallax.scheduler.classmap.ReadWriteClasses;

/**
 * The request classes of the key-value store ({@link KvStateMachine}) for the parallel executors:
 * the readers-and-writers map of seed 001 §1 and §7.2 ({@link ReadWriteClasses}). GET, EXISTS,
 * MGET, DBSIZE and STRLEN only read the store's one hash map and run concurrently with each other
 * ({@code R}, CONC); every other operation writes it and conflicts with everything ({@code W}, SEQ
 * on every worker). The global commands need no class of their own: {@code W} already is the
 * global class, so FLUSHALL (writes the whole store) is {@code W}, and DBSIZE (reads the whole
 * store) conflicts with every write as any {@code R} does.
 * Finer classes (per key) would be wrong for this store: its one {@code HashMap} and its digest
 * must not be written by two threads at once, and concurrent reads are safe only while no write
 * runs.
 *
 * <p>Stateless and thread-safe.
 */
public final class KvClassifier implements CommandClassifier {
    /**
     * The key-value store's classes, as the executor registry takes them; partitioned by group for
     * P-SMR (its C-G is {@code KvRouter}, its store {@link KvRouting#stateMachine}).
     */
    public static final ServiceClasses SERVICE = new ServiceClasses("key-value store", ReadWriteClasses::classMap,
            new KvClassifier(), dev.parallax.examples.kv.KvRouter::new);

    /**
     * {@link ReadWriteClasses#READ} for GET, EXISTS, MGET, DBSIZE and STRLEN; {@link ReadWriteClasses#WRITE} for
     * everything else, malformed bytes included (empty, unknown op code), so that the store itself
     * rejects them with the error sequential execution gives: every executor answers every command
     * alike. Never throws.
     */
    @Override
    public int classify(Command command) {
        if (command.size() == 0) {
            return ReadWriteClasses.WRITE;
        }
        byte op = command.payload().get(0);
        return op == KvOp.GET.code() || op == KvOp.EXISTS.code() || op == KvOp.MGET.code()
                || op == KvOp.DBSIZE.code() || op == KvOp.STRLEN.code() ? ReadWriteClasses.READ : ReadWriteClasses.WRITE;
    }
}
