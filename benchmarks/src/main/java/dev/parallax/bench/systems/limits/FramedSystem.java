package dev.parallax.bench.systems.limits;

import dev.parallax.examples.process.ServerProcesses;

import dev.parallax.bench.systems.BenchSystem;
import dev.parallax.bench.systems.ServerJvm;
import dev.parallax.examples.process.ServerProcesses;
import dev.parallax.core.client.CommandInvoker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The part the two network limits share: server JVMs started by a subclass, and clients that are
 * {@link FramedConnections} to one port. Not thread-safe (one owner thread, as {@link BenchSystem}
 * says); its invokers are.
 */
abstract class FramedSystem implements BenchSystem {
    private ServerProcesses servers;
    private FramedConnections connections;
    private int clientPort;

    /**
     * Launches this system's servers with {@code servers} and waits until they are ready.
     *
     * @return the port clients connect to
     */
    abstract int launch(ServerProcesses servers, Duration timeout) throws Exception;

    @Override
    public final void start(Path workDir, Duration timeout) throws Exception {
        servers = new ServerProcesses(workDir, ServerJvm.options());
        clientPort = launch(servers, timeout);
        connections = new FramedConnections();
    }

    @Override
    public final Map<String, Long> serverPids() {
        return servers.pids();
    }

    @Override
    public final CommandInvoker connect(int maxOutstanding) throws Exception {
        return connections.open(clientPort);
    }

    @Override
    public final void close() {
        if (connections != null) {
            connections.close();
        }
        if (servers != null) {
            servers.close();
        }
    }
}
