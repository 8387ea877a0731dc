package dev.parallax.bench.systems.limits;

/**
 * A bare forwarder's follower JVM: acknowledges every batch the leader relays ({@link BatchAcker},
 * wire format in {@link BatchWire}) and does nothing else with it.
 * {@code ForwarderFollower <port> <threads>} prints {@code READY <port>} once bound and runs until
 * stopped.
 */
public final class ForwarderFollower {
    private ForwarderFollower() {
    }

    /**
     * Serves until the process is stopped.
     *
     * @throws InterruptedException if interrupted while binding or serving
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: ForwarderFollower <port> <threads>");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        LoopbackServer server = LoopbackServer.bind("follower", port,
                LoopbackServer.loops("follower", Integer.parseInt(args[1])), ch -> new BatchAcker());
        System.out.println("READY " + port);
        server.awaitClose();
    }
}
