package dev.parallax.bench.systems.zookeeper;

import org.apache.zookeeper.server.quorum.QuorumPeerMain;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One ZooKeeper server JVM of the benchmark ensemble: runs ZooKeeper's own
 * {@link QuorumPeerMain} on a {@code zoo.cfg}, and prints {@code READY mode=<leader|follower>} once
 * the server answers the {@code srvr} four-letter word with a mode, which it does only after the
 * quorum formed and it synchronised with the leader (before that it answers "not currently serving
 * requests").
 *
 * <p>Usage: {@code ZooKeeperPeerMain <zoo.cfg> <clientPort>}. The process runs until killed.
 */
public final class ZooKeeperPeerMain {
    private static final Pattern MODE = Pattern.compile("(?m)^Mode: (\\w+)");
    private static final int PROBE_INTERVAL_MS = 50;

    private ZooKeeperPeerMain() {
    }

    /**
     * Starts the server and announces readiness; blocks forever (the server's thread keeps the JVM alive).
     *
     * @throws InterruptedException if interrupted while waiting for the server to serve
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: ZooKeeperPeerMain <zoo.cfg> <clientPort>");
            System.exit(2);
        }
        int clientPort = Integer.parseInt(args[1]);
        Thread server = new Thread(() -> QuorumPeerMain.main(new String[] {args[0]}), "zookeeper-quorum-peer");
        server.start();
        while (server.isAlive()) {
            Optional<String> mode = mode(clientPort);
            if (mode.isPresent()) {
                System.out.println("READY mode=" + mode.get());
                System.out.flush();
                server.join();
                return;
            }
            // The quorum forms on its own schedule (leader election, then follower sync) and ZooKeeper
            // offers no in-process hook for "serving"; a short probe interval keeps start-up fast.
            Thread.sleep(PROBE_INTERVAL_MS);
        }
    }

    /** The server's mode from {@code srvr}, or empty while it does not serve (or is unreachable). */
    static Optional<String> mode(int clientPort) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", clientPort), 1000);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            Matcher m = MODE.matcher(answer);
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
