package dev.parallax.examples.volery.zk;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.zookeeper.proto.ConnectRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bound on open connections: past it a new connection is closed at once, before its handshake,
 * and counted in {@code parallax.volery.zk.refused{reason=too-many-connections}}; the connections
 * already open go on, and once one closes there is room again.
 */
class ZkServerConnectionLimitTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private ZkServer server;

    @BeforeEach
    void start() throws Exception {
        server = new ZkServer(ZkServerConfig.of("127.0.0.1", 0).withIoThreads(1).withMaxConnections(2),
                new LocalVoleryBackend(), registry);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private double refused() {
        Counter c = registry.find("parallax.volery.zk.refused").tag("reason", "too-many-connections").counter();
        return c == null ? 0 : c.count();
    }

    private double open() {
        return registry.get("parallax.volery.zk.connections.open").gauge().value();
    }

    @Test
    void aConnectionPastTheBoundIsClosedAtOnceAndCounted() throws Exception {
        try (RawZkConnection first = new RawZkConnection(server.port());
             RawZkConnection second = new RawZkConnection(server.port())) {
            first.handshake(0, new byte[0], 10_000);
            second.handshake(0, new byte[0], 10_000);
            try (RawZkConnection third = new RawZkConnection(server.port())) {
                ZkTesting.await("the third connection refused", () -> refused() == 1);
                try {
                    third.sendFrame(RawZkConnection.serialize(new ConnectRequest(0, 0, 10_000, 0, new byte[16], false)));
                } catch (java.io.IOException closedAlready) {
                    // the server may have closed it before the request went out
                }
                assertThat(third.closedByServer()).isTrue();
            }
            ZkTesting.assertServes(first, 1);
            ZkTesting.assertServes(second, 1);
        }
        ZkTesting.await("both connections gone", () -> open() == 0);
        try (RawZkConnection again = new RawZkConnection(server.port())) {
            assertThat(again.handshake(0, new byte[0], 10_000).getTimeOut()).isEqualTo(10_000);
            ZkTesting.assertServes(again, 1);
        }
        assertThat(refused()).isEqualTo(1);
    }

    @Test
    void theBoundIsPositiveAndDefaultsTo4096() {
        assertThat(ZkServerConfig.of("127.0.0.1", 0).maxConnections()).isEqualTo(4096);
        assertThatThrownBy(() -> ZkServerConfig.of("127.0.0.1", 0).withMaxConnections(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
