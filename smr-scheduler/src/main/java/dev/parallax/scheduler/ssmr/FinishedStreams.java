package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link SsmrCore}'s rule 6 memory: the highest finished sequence of the most recent client streams
 * (client id, destinations), bounded, least recently used evicted. Not thread-safe: the core's thread.
 */
final class FinishedStreams {
    private record Stream(long clientId, long groups) {
    }

    private final LinkedHashMap<Stream, Long> finished;

    FinishedStreams(int streams) {
        this.finished = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Stream, Long> eldest) {
                return size() > streams;
            }
        };
    }

    /** {@code id} finished. */
    void add(CommandId id) {
        Stream s = new Stream(id.clientId(), id.groups().bits());
        Long max = finished.get(s);
        if (max == null || max < id.sequence()) {
            finished.put(s, id.sequence());
        }
    }

    /** True if {@code id}'s stream finished it or a later command. */
    boolean contains(CommandId id) {
        Long max = finished.get(new Stream(id.clientId(), id.groups().bits()));
        return max != null && id.sequence() <= max;
    }
}
