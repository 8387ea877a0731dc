package dev.parallax.bench.systems;

import dev.parallax.core.client.CommandInvoker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A system the load generator drives: Parallax, a peer replication library, or a network limit
 * (echo, bare forwarder). Its servers run as separate JVMs on 127.0.0.1; the load runs in the
 * calling JVM through {@link CommandInvoker}s.
 *
 * <p>Commands are opaque byte strings of the load's size. Peers apply them to a trivial state
 * machine (a counter, or a key-value put) and answer with a short reply; the reply's content is not
 * inspected by the generator, only its arrival.
 *
 * <p>Lifecycle: {@link #start} once, then any number of {@link #connect} calls, then
 * {@link #close}. Not thread-safe: one owner thread calls these; the invokers it returns are
 * thread-safe and never block.
 */
public interface BenchSystem extends AutoCloseable {

    /** A short stable name used on the command line and in result files ({@code ratis}, {@code echo}, ...). */
    String name();

    /** What was configured for throughput, one line per setting, for the results and docs. */
    Map<String, String> settings();

    /**
     * Starts the servers as separate JVMs with their files under {@code workDir} and blocks until
     * every server serves (or fails).
     *
     * @throws Exception if a server exits or is not ready within {@code timeout}
     */
    void start(Path workDir, Duration timeout) throws Exception;

    /** Server processes by name ({@code server-0}, ...) to operating-system pid, for CPU accounting. */
    Map<String, Long> serverPids();

    /**
     * Opens one client connection (its own session) that keeps up to {@code maxOutstanding}
     * commands in flight. Blocks until connected.
     *
     * @throws Exception if the servers cannot be reached
     */
    CommandInvoker connect(int maxOutstanding) throws Exception;

    /**
     * The measured period begins (after warm-up): a system that can report on its internals starts
     * sampling here. Must not block for long. Default: nothing.
     */
    default void measurementStarted() {
    }

    /**
     * The measured period ended. Returns a report on where the system's time went during it (text,
     * one item per line), or an empty string. Default: empty.
     */
    default String measurementEnded() {
        return "";
    }

    /**
     * Bytes each server process has sent so far, to its peers and its clients, by the names of
     * {@link #serverPids} (cumulative; -1 for a process that could not be read). The sweep reads it
     * around each measured period and records the differences. May block briefly (it may scrape
     * the servers' metrics). Default: empty, the system does not count bytes.
     */
    default Map<String, Double> bytesSent() {
        return Map.of();
    }

    /**
     * Bytes each replica has sent to its peers so far (replica-port channels and datagram groups;
     * client replies excluded), by the names of {@link #serverPids} (cumulative; -1 for a process
     * that could not be read): the sender side of the efficiency metric (seed 003 (Ring Paxos)
     * §3.1 ¶2). May block briefly. Default: empty, not counted.
     */
    default Map<String, Double> peerBytesSent() {
        return Map.of();
    }

    /**
     * Bytes of decided values each replica has handed to its state machine so far (cumulative; -1
     * for a process that could not be read): the receiver side of the efficiency metric. May
     * block briefly. Default: empty, not counted.
     */
    default Map<String, Double> deliveredBytes() {
        return Map.of();
    }

    /** Closes every connection opened here and stops the servers (killing them if they linger). */
    @Override
    void close();
}
