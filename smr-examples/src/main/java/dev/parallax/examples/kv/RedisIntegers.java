package dev.parallax.examples.kv;

/**
 * Parses decimal 64-bit integers the way Redis' {@code string2ll} does: an optional minus sign,
 * no leading zeros, no spaces or plus sign, no overflow. A value INCR accepts is exactly one Redis
 * accepts, so the replicated store and Redis agree on which values are integers.
 *
 * <p>Stateless and thread-safe.
 */
final class RedisIntegers {
    private static final int MAX_DIGITS_WITH_SIGN = 20;

    private RedisIntegers() {
    }

    /**
     * The value of {@code s}, an ASCII decimal integer.
     *
     * @throws NumberFormatException if {@code s} is not a Redis integer
     */
    static long parse(byte[] s) {
        int n = s.length;
        if (n == 1 && s[0] == '0') {
            return 0;
        }
        if (n == 0 || n > MAX_DIGITS_WITH_SIGN) {
            throw notAnInteger();
        }
        boolean negative = s[0] == '-';
        int i = negative ? 1 : 0;
        if (i == n || s[i] < '1' || s[i] > '9') {
            throw notAnInteger();
        }
        // Accumulate negatively so that Long.MIN_VALUE, whose magnitude is no long, parses.
        long acc = 0;
        for (; i < n; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9 || acc < Long.MIN_VALUE / 10) {
                throw notAnInteger();
            }
            acc *= 10;
            if (acc < Long.MIN_VALUE + d) {
                throw notAnInteger();
            }
            acc -= d;
        }
        if (negative) {
            return acc;
        }
        if (acc == Long.MIN_VALUE) {
            throw notAnInteger();
        }
        return -acc;
    }

    private static NumberFormatException notAnInteger() {
        return new NumberFormatException("not a Redis integer");
    }
}
