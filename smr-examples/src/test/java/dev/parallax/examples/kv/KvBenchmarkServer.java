package dev.parallax.examples.kv;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a RespServer over an in-process invoker (one state machine thread, futures completed at
 * once) for manual checks with {@code redis-cli} and {@code redis-benchmark}:
 *
 * <pre>
 * java -cp ... dev.parallax.examples.kv.KvBenchmarkServer [port [ioThreads]]
 * redis-benchmark -p 6380 -t set,get -n 100000 -P 16 -q
 * </pre>
 *
 * Runs until the process is stopped; a shutdown hook closes the server.
 */
public final class KvBenchmarkServer {
    private KvBenchmarkServer() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 6380;
        int ioThreads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        InProcessInvoker invoker = new InProcessInvoker(new KvStateMachine(), 0, 1);
        RespServer server = new RespServer(RespServerConfig.of("127.0.0.1", port).withIoThreads(ioThreads), invoker);
        server.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            invoker.close();
            stopped.countDown();
        }));
        System.out.println("RESP server on 127.0.0.1:" + server.port() + " (" + ioThreads + " IO threads)");
        stopped.await();
    }
}
