package dev.parallax.bench.systems.limits;

import dev.parallax.examples.process.ServerProcesses;

import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ServerJvm;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.core.net.LocalPorts;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code echo}: one unreplicated {@link EchoServer} JVM that sends every command back as its reply,
 * driven by {@link dev.parallax.bench.systems.framed.FramedClient}s. No replication, no state machine: the
 * throughput of loopback plus the client, the ceiling for every system measured the same way.
 *
 * <p>Not thread-safe (one owner thread, as {@link BenchSystem} says); its invokers are.
 */
public final class EchoSystem extends FramedSystem {
    /** Server event loops: one per core of the 2-core benchmark machine. */
    static final int SERVER_THREADS = 2;

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("servers", "1 (unreplicated), replies with the command's bytes");
        s.put("server.io.threads", Integer.toString(SERVER_THREADS));
        s.put("client.io.threads", Integer.toString(FramedConnections.CLIENT_THREADS));
        s.put("transport", "Netty NIO, TCP_NODELAY, pooled buffers; each read's whole commands written back as one slice, "
                + "one flush per read burst");
        s.put("jvm", String.join(" ", ServerJvm.options()));
        return s;
    }

    @Override
    int launch(ServerProcesses servers, Duration timeout) throws Exception {
        int port = LocalPorts.next();
        servers.launch("server-0", EchoServer.class, List.of(Integer.toString(port), Integer.toString(SERVER_THREADS)));
        servers.awaitReady("server-0", timeout);
        return port;
    }
}
