package dev.parallax.examples.net;

/**
 * The checks of the settings every client-facing front end of the examples has ({@code RespServer},
 * Volery's {@code ZkServer}): the port to bind, its Netty event loops and its bound on pending
 * requests per connection ({@link OrderedReplies}). Stateless; thread-safe.
 */
public final class ListenerSettings {
    private ListenerSettings() {
    }

    /**
     * @throws IllegalArgumentException naming the setting if {@code port} is not 0..65535 or
     *                                  {@code ioThreads} or {@code maxPendingPerConnection} is not positive
     */
    public static void check(int port, int ioThreads, int maxPendingPerConnection) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be positive: " + ioThreads);
        }
        if (maxPendingPerConnection < 1) {
            throw new IllegalArgumentException("maxPendingPerConnection must be positive: " + maxPendingPerConnection);
        }
    }
}
