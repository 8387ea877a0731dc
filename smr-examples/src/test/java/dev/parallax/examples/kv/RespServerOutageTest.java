package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.client.ClientConfig;
import dev.parallax.core.client.SmrClient;
import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.config.ReplicaConfig;
import dev.parallax.core.net.LinkFaults;
import dev.parallax.core.net.LocalPorts;
import dev.parallax.core.replica.Replica;
import dev.parallax.paxos.MultiPaxos;
import dev.parallax.paxos.PaxosConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Invoke time-outs at the Redis port: a RESP front end shares one {@link SmrClient} for all its
 * connections, so a command that times out during a quorum outage must not break that client. A
 * real 3-replica Multi-Paxos cluster, every replica cut off from the others for longer than the
 * client's invoke timeout, then healed: the same Redis connection on the same port serves again
 * within 30 s, the timed-out INCR answered "outcome unknown" (not a definite failure), and it ran
 * exactly once.
 */
class RespServerOutageTest {
    private static final int N = 3;
    private static final Duration INVOKE_TIMEOUT = Duration.ofSeconds(2);

    private final List<Replica> replicas = new ArrayList<>();
    private final List<LinkFaults> faults = new ArrayList<>();
    private SmrClient forwarder;
    private RespServer server;
    private Jedis jedis;

    @AfterEach
    void stop() {
        if (jedis != null) {
            jedis.close();
        }
        if (server != null) {
            server.close();
        }
        if (forwarder != null) {
            forwarder.close();
        }
        replicas.forEach(Replica::close);
    }

    private void startCluster() throws Exception {
        ClusterMembers members = ClusterMembers.parse(LocalPorts.endpoints(N));
        ClusterMembers clients = ClusterMembers.parse(LocalPorts.endpoints(N));
        PaxosConfig paxos = PaxosConfig.builder(N).heartbeat(Duration.ofMillis(30)).suspect(Duration.ofMillis(300))
                .retransmit(Duration.ofMillis(100)).catchUp(Duration.ofMillis(50)).build();
        for (int i = 0; i < N; i++) {
            LinkFaults f = new LinkFaults();
            faults.add(f);
            replicas.add(Replica.builder()
                    .config(ReplicaConfig.builder().id(i).members(members).clientMembers(clients).clientIoThreads(1).build())
                    .stateMachine(new KvStateMachine()).ordering(MultiPaxos.protocol(paxos)).linkFaults(f).build());
        }
        replicas.forEach(Replica::start);
        forwarder = SmrClient.connect(ClientConfig.builder(clients).retryTimeout(Duration.ofMillis(200))
                .invokeTimeout(INVOKE_TIMEOUT).build());
        server = new RespServer(RespServerConfig.of("127.0.0.1", 0), forwarder);
        server.start();
        // A socket timeout far above the invoke timeout: the reply, not the socket, must end a call.
        jedis = new Jedis("127.0.0.1", server.port(), 60_000);
    }

    /** Cuts every replica off from every other: no quorum anywhere. */
    private void partitionAll() {
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) {
                if (i != j) {
                    faults.get(i).block(j);
                }
            }
        }
    }

    @Test
    void theSameRedisPortServesAgainAfterAnOutageLongerThanTheInvokeTimeout() throws Exception {
        startCluster();
        // A cold cluster (leader election, connections, JIT) may take longer than the short invoke
        // timeout for its first command: warm it up with an idempotent SET, repeated until answered.
        String warm = null;
        List<String> warmUpErrors = new ArrayList<>();
        long warmDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (warm == null && System.nanoTime() - warmDeadline < 0) {
            try {
                warm = jedis.set("warm", "up");
            } catch (JedisDataException e) {
                warmUpErrors.add(e.getMessage());
            }
        }
        assertThat(warm).as("the cluster serves within 60 s; errors meanwhile: %s", warmUpErrors).isEqualTo("OK");
        assertThat(jedis.incr("n")).isEqualTo(1);

        partitionAll();
        long outageStart = System.nanoTime();
        assertThatThrownBy(() -> jedis.incr("n")).isInstanceOf(JedisDataException.class)
                .hasMessageStartingWith("ERR UNKNOWN outcome: the command may or may not have executed");
        assertThat(System.nanoTime() - outageStart).as("the outage outlasted the invoke timeout")
                .isGreaterThanOrEqualTo(INVOKE_TIMEOUT.toNanos());
        faults.forEach(LinkFaults::heal);

        // The same connection (the same shared client) serves again after the heal (a new leader
        // may have to be elected and catch up first: 30 s leaves room for a loaded machine).
        long healed = System.nanoTime();
        long deadline = healed + TimeUnit.SECONDS.toNanos(30);
        String answer = null;
        List<String> errors = new ArrayList<>();
        while (answer == null && System.nanoTime() - deadline < 0) {
            try {
                answer = jedis.set("after", "heal"); // idempotent: safe to repeat after an unknown outcome
            } catch (JedisDataException e) {
                errors.add(e.getMessage());
            }
        }
        assertThat(answer).as("served within 30 s of the heal; errors meanwhile: %s", errors).isEqualTo("OK");
        assertThat(jedis.get("after")).isEqualTo("heal");
        // The timed-out INCR was kept in flight and ran before the SET (one stream, in order),
        // exactly once.
        assertThat(jedis.get("n")).isEqualTo("2");
        assertThat(jedis.incr("n")).isEqualTo(3);
    }
}
