package dev.parallax.core.check;

/**
 * An operation on a single {@code long} register, the input type of {@link RegisterModel}.
 * Immutable and therefore thread-safe.
 */
public sealed interface RegisterOp {

    /** Reads the register; the output is {@link RegisterResult#read(long)}. Non-blocking. */
    static RegisterOp read() {
        return Read.INSTANCE;
    }

    /** Writes {@code value}; the output is {@link RegisterResult#ok()}. Non-blocking. */
    static RegisterOp write(long value) {
        return new Write(value);
    }

    /**
     * Sets the register to {@code update} if it holds {@code expected}; the output is
     * {@link RegisterResult#ok()} when it did and {@link RegisterResult#failed()} when it did not.
     * Non-blocking.
     */
    static RegisterOp cas(long expected, long update) {
        return new Cas(expected, update);
    }

    /** A read. */
    record Read() implements RegisterOp {
        private static final Read INSTANCE = new Read();

        @Override
        public String toString() {
            return "read()";
        }
    }

    /** A blind write of {@code value}. */
    record Write(long value) implements RegisterOp {
        @Override
        public String toString() {
            return "write(" + value + ")";
        }
    }

    /** A compare-and-set from {@code expected} to {@code update}. */
    record Cas(long expected, long update) implements RegisterOp {
        @Override
        public String toString() {
            return "cas(" + expected + ", " + update + ")";
        }
    }
}
