package dev.parallax.core.net;

import dev.parallax.core.spi.ArrivalStamps;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The channels of one {@link ReplicaPort}, by number (this replica's own, 1 to
 * {@value #MAX_CHANNELS}, in the order they were opened) and by name (how peers' announcements are
 * matched), and the {@link ArrivalStamps} every inbound frame is stamped on.
 *
 * <p>Written under the port's monitor only ({@link #open}, {@link #addStamps}, {@link #closeAll});
 * {@link #named} and {@link #stamps} are read by Netty IO threads without locking (a concurrent map
 * and a volatile copy-on-write array). Never blocks.
 */
final class ChannelRegistry {
    /** Channel numbers are one byte, and 0 is the port's control channel. */
    static final int MAX_CHANNELS = 255;

    private final Map<String, PortChannel<?>> byName = new ConcurrentHashMap<>();
    private final List<PortChannel<?>> channels = new ArrayList<>();
    private volatile ArrivalStamps[] stamps = new ArrivalStamps[0];

    /**
     * Adds the channel {@code create} makes for the next number.
     *
     * @throws IllegalArgumentException if {@code name} is taken
     * @throws IllegalStateException    if {@value #MAX_CHANNELS} channels are open
     */
    <M> PortChannel<M> open(String name, IntFunction<PortChannel<M>> create) {
        if (byName.containsKey(name)) {
            throw new IllegalArgumentException("channel '" + name + "' is already open");
        }
        if (channels.size() == MAX_CHANNELS) {
            throw new IllegalStateException("at most " + MAX_CHANNELS + " channels per replica port");
        }
        PortChannel<M> c = create.apply(channels.size() + 1);
        channels.add(c);
        byName.put(name, c);
        return c;
    }

    /** The channel {@code name}, or {@code null} if this replica did not open it. Any thread. */
    PortChannel<?> named(String name) {
        return byName.get(name);
    }

    /** Every channel opened so far, in number order (an immutable copy). */
    List<PortChannel<?>> all() {
        return List.copyOf(channels);
    }

    /** Adds {@code s} to the stamps of every inbound frame. */
    void addStamps(ArrivalStamps s) {
        ArrivalStamps[] old = stamps;
        ArrivalStamps[] now = Arrays.copyOf(old, old.length + 1);
        now[old.length] = s;
        stamps = now;
    }

    /** The arrival stamps to mark on every inbound frame (do not modify). Any thread. */
    ArrivalStamps[] stamps() {
        return stamps;
    }

    /** The port closed: every channel refuses later sends. */
    void closeAll() {
        for (PortChannel<?> c : channels) {
            c.portClosed();
        }
    }
}
