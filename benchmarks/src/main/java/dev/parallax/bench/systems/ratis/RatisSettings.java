package dev.parallax.bench.systems.ratis;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;

import java.io.File;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Ratis configuration of the benchmark, as Ratis property keys and values: the one place both the
 * servers (which apply them) and the results (which record them) read from. Immutable and
 * thread-safe.
 *
 * <p>Transport: gRPC, Ratis's default RPC type and the one whose leader log appender pipelines
 * AppendEntries over a stream ({@code raft.grpc.server.leader.outstanding.appends.max} in flight per
 * follower); the Netty RPC type's appender sends one AppendEntries at a time. The log-appender
 * batching, queue and write-buffer values are Ratis's defaults (documented in its configuration
 * reference; large next to 32-128 B commands), set explicitly so that the results record them, as
 * are the default election timeouts (150-300 ms).
 *
 * <p>Durability, the one variable: with {@code fsync} the log worker forces the segment file
 * before it advances the flush index, once per batch of queued appends (Ratis's default, like
 * Parallax's {@code every-batch}); without it {@code raft.server.log.unsafe-flush.enabled} lets the
 * flush index advance without waiting for the force, which still runs on a background thread (the
 * nearest Ratis has to Parallax's {@code none}).
 */
public final class RatisSettings {
    /** Client retries on NotLeader and I/O errors: bounded, so that a dead group fails commands rather than hangs. */
    static final int CLIENT_RETRY_ATTEMPTS = 100;
    static final TimeDuration CLIENT_RETRY_SLEEP = TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);

    private final boolean fsync;
    private final Map<String, String> server;

    /** @param fsync whether an append is acknowledged only after the log segment was forced to disk */
    public RatisSettings(boolean fsync) {
        this.fsync = fsync;
        Map<String, String> s = new LinkedHashMap<>();
        s.put(RaftConfigKeys.Rpc.TYPE_KEY, SupportedRpcType.GRPC.name());
        s.put(RaftServerConfigKeys.Log.UNSAFE_FLUSH_ENABLED_KEY, String.valueOf(!fsync));
        s.put(RaftServerConfigKeys.Log.ASYNC_FLUSH_ENABLED_KEY, "false");
        s.put(RaftServerConfigKeys.Log.FORCE_SYNC_NUM_KEY, "128");
        s.put(RaftServerConfigKeys.Log.WRITE_BUFFER_SIZE_KEY, "8MB");
        s.put(RaftServerConfigKeys.Log.QUEUE_ELEMENT_LIMIT_KEY, "4096");
        s.put(RaftServerConfigKeys.Log.QUEUE_BYTE_LIMIT_KEY, "64MB");
        s.put(RaftServerConfigKeys.Log.SEGMENT_SIZE_MAX_KEY, "32MB");
        s.put(RaftServerConfigKeys.Log.PREALLOCATED_SIZE_KEY, "4MB");
        s.put(RaftServerConfigKeys.Log.Appender.BUFFER_ELEMENT_LIMIT_KEY, "0");
        s.put(RaftServerConfigKeys.Log.Appender.BUFFER_BYTE_LIMIT_KEY, "4MB");
        s.put(RaftServerConfigKeys.Write.ELEMENT_LIMIT_KEY, "4096");
        s.put(RaftServerConfigKeys.Write.BYTE_LIMIT_KEY, "64MB");
        s.put(GrpcConfigKeys.Server.LEADER_OUTSTANDING_APPENDS_MAX_KEY, "8");
        s.put(GrpcConfigKeys.Server.HEARTBEAT_CHANNEL_KEY, "true");
        s.put(GrpcConfigKeys.FLOW_CONTROL_WINDOW_KEY, "1MB");
        s.put(RaftServerConfigKeys.Snapshot.AUTO_TRIGGER_ENABLED_KEY, "false");
        s.put(RaftServerConfigKeys.Rpc.TIMEOUT_MIN_KEY, "150ms");
        s.put(RaftServerConfigKeys.Rpc.TIMEOUT_MAX_KEY, "300ms");
        this.server = Collections.unmodifiableMap(s);
    }

    /** Whether appends wait for the log's fsync. */
    public boolean fsync() {
        return fsync;
    }

    /** The server properties, key to value, in the order they are applied. */
    public Map<String, String> server() {
        return server;
    }

    /**
     * Properties for a server: {@link #server()} plus its storage directory and gRPC port (the
     * admin and client services share that port).
     */
    public RaftProperties serverProperties(File storageDir, int port) {
        RaftProperties p = new RaftProperties();
        server.forEach(p::set);
        RaftServerConfigKeys.setStorageDir(p, List.of(storageDir));
        GrpcConfigKeys.Server.setPort(p, port);
        return p;
    }

    /**
     * Properties for one client connection that keeps up to {@code maxOutstanding} requests in
     * flight (Ratis accepts no limit below 2).
     */
    public static RaftProperties clientProperties(int maxOutstanding) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(p, Math.max(2, maxOutstanding));
        return p;
    }

    /** The retry policy of every client: fixed sleeps, bounded attempts. */
    public static RetryPolicy clientRetryPolicy() {
        return RetryPolicies.retryUpToMaximumCountWithFixedSleep(CLIENT_RETRY_ATTEMPTS, CLIENT_RETRY_SLEEP);
    }

    /** Every setting, server and client, one line each, for {@link dev.parallax.bench.systems.BenchSystem#settings()}. */
    public Map<String, String> describe() {
        Map<String, String> d = new LinkedHashMap<>(server);
        d.put(RaftClientConfigKeys.Async.OUTSTANDING_REQUESTS_MAX_KEY, "--outstanding (per client)");
        d.put("client.retry.policy", CLIENT_RETRY_ATTEMPTS + " attempts, " + CLIENT_RETRY_SLEEP + " apart");
        d.put("client.api", "RaftClient.async().send, one RaftClient per connection");
        d.put("state.machine", "counter (BaseStateMachine), reply = new value as 8 bytes, no snapshots");
        return d;
    }
}
