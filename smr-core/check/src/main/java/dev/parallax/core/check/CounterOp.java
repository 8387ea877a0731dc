package dev.parallax.core.check;

/**
 * An operation on a {@code long} counter, the input type of {@link CounterModel}. The output of
 * both operations is the counter value after them. Immutable and therefore thread-safe.
 */
public sealed interface CounterOp {

    /** Adds {@code delta} and returns the new value. Non-blocking. */
    static CounterOp add(long delta) {
        return new Add(delta);
    }

    /** Returns the current value. Non-blocking. */
    static CounterOp read() {
        return Read.INSTANCE;
    }

    /** An increment by {@code delta} (negative to decrement). */
    record Add(long delta) implements CounterOp {
        @Override
        public String toString() {
            return "add(" + delta + ")";
        }
    }

    /** A read. */
    record Read() implements CounterOp {
        private static final Read INSTANCE = new Read();

        @Override
        public String toString() {
            return "read()";
        }
    }
}
