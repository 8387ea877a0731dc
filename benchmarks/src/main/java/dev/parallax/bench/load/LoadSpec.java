package dev.parallax.bench.load;

import java.time.Duration;

/**
 * What a load run does. Immutable.
 *
 * @param connections  client sessions (each its own connection)
 * @param outstanding  commands each connection keeps in flight
 * @param commandBytes size of each encoded command
 * @param readPercent  share of reads (GET) among commands, 0..100; the rest are writes (SET)
 * @param keys         distinct keys per connection
 * @param warmup       load before measuring (not recorded)
 * @param duration     measured period
 */
public record LoadSpec(int connections, int outstanding, int commandBytes, int readPercent, int keys,
                       Duration warmup, Duration duration) {
    public LoadSpec {
        if (connections < 1 || outstanding < 1 || commandBytes < 16 || readPercent < 0 || readPercent > 100 || keys < 1) {
            throw new IllegalArgumentException("need connections >= 1, outstanding >= 1, commandBytes >= 16, "
                    + "readPercent in 0..100, keys >= 1");
        }
        if (warmup.isNegative() || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("warm-up must be >= 0 and duration > 0");
        }
    }

    /** This load with {@code outstanding} commands in flight per connection. */
    public LoadSpec withOutstanding(int outstanding) {
        return new LoadSpec(connections, outstanding, commandBytes, readPercent, keys, warmup, duration);
    }
}
