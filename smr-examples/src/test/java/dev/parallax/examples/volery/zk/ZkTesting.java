package dev.parallax.examples.volery.zk;

import dev.parallax.core.testkit.Await;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.ReplyHeader;

import static org.assertj.core.api.Assertions.assertThat;

/** Helpers shared by the ZooKeeper front end's tests. */
final class ZkTesting {
    /** A generous wait for events on a loaded CI machine. */
    static final long WAIT_SECONDS = 30;

    private ZkTesting() {
    }

    /** The official client connected to {@code server} (waits for SyncConnected). */
    static ZooKeeper connect(ZkServer server) throws Exception {
        return ZooKeeperClients.connect("127.0.0.1:" + server.port(), 10_000, Duration.ofSeconds(WAIT_SECONDS));
    }

    /** Polls {@code condition} until it holds, failing after {@link #WAIT_SECONDS}. */
    static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(WAIT_SECONDS), condition);
    }

    /** The count of session events {@code event} (created, resumed, adopted, ...) a server recorded in {@code registry}. */
    static double sessions(MeterRegistry registry, String event) {
        return registry.get("parallax.volery.zk.sessions").tag("event", event).counter().count();
    }

    /** Asserts that the session of {@code c} is served: exists("/") as request {@code xid} answers without error. */
    static void assertServes(RawZkConnection c, int xid) throws IOException {
        c.sendRequest(xid, ZkOp.EXISTS.code(), new ExistsRequest("/", false));
        ReplyHeader header = c.readReply(new ExistsResponse());
        assertThat(header.getXid()).isEqualTo(xid);
        assertThat(header.getErr()).isZero();
    }
}
