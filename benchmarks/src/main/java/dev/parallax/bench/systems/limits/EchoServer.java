package dev.parallax.bench.systems.limits;

/**
 * The echo limit's server JVM: answers each {@code [int length][bytes]} command of a
 * {@link dev.parallax.bench.systems.framed.FramedClient} with the command itself ({@link EchoHandler}).
 * {@code EchoServer <port> <threads>} prints {@code READY <port>} once bound and runs until stopped.
 */
public final class EchoServer {
    private EchoServer() {
    }

    /**
     * Serves until the process is stopped.
     *
     * @throws InterruptedException if interrupted while binding or serving
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: EchoServer <port> <threads>");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        LoopbackServer server = LoopbackServer.bind("echo", port, LoopbackServer.loops("echo", Integer.parseInt(args[1])),
                ch -> new EchoHandler());
        System.out.println("READY " + port);
        server.awaitClose();
    }
}
