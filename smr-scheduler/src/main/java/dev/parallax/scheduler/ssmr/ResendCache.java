package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link SsmrCore}'s memory of what it sent for its last finished commands to several partitions
 * (rule 8: retransmission and catch-up push-ahead), bounded by {@link SsmrConfig#resendCache},
 * evicting the oldest. Not thread-safe: the core's thread.
 */
final class ResendCache {
    /**
     * What a replica sent for one command: one message for every other involved partition
     * ({@code all}), or, with caching, one per reader ({@code perReader}, whose ⊥ differ) and the
     * {@code full} one with every value (for {@link PartitionMessage.FullRequest}s).
     */
    record Sent(PartitionMessage all, Map<Integer, PartitionMessage> perReader, PartitionMessage full) {
        /** What went to {@code reader}. */
        PartitionMessage to(int reader) {
            PartitionMessage m = perReader == null ? null : perReader.get(reader);
            return m != null ? m : all;
        }

        /** The answer to a request for every value: the full message, or what went to {@code reader}. */
        PartitionMessage fullTo(int reader) {
            return full != null ? full : to(reader);
        }
    }

    private final LinkedHashMap<CommandId, Sent> sent;

    ResendCache(int capacity) {
        this.sent = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<CommandId, Sent> eldest) {
                return size() > capacity;
            }
        };
    }

    void put(CommandId id, Sent s) {
        sent.put(id, Objects.requireNonNull(s));
    }

    Sent get(CommandId id) {
        return sent.get(id);
    }

    /**
     * The messages of the finished commands after {@code asked} that involve {@code to}, in finish
     * order, at most {@code max} of them and {@code maxBytes} of values (rule 8's push-ahead).
     */
    void after(CommandId asked, int to, int max, long maxBytes, List<PartitionMessage> out) {
        boolean after = false;
        long bytes = 0;
        for (Map.Entry<CommandId, Sent> e : sent.entrySet()) {
            if (!after) {
                after = e.getKey().equals(asked);
                continue;
            }
            if ((e.getKey().groups().bits() & (1L << to)) == 0) {
                continue;
            }
            PartitionMessage m = e.getValue().to(to);
            bytes += PartitionMessage.valueBytes(m);
            if (out.size() == max || bytes > maxBytes) {
                return;
            }
            out.add(m);
        }
    }
}
