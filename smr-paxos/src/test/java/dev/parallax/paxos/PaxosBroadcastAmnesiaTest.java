package dev.parallax.paxos;

import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.runtime.RuntimeOptions;
import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.spi.RecordVisitor;
import dev.parallax.core.testkit.LocalNetwork;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.time.SystemClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replica of a running {@link PaxosBroadcast} cluster loses its whole log to a "power loss" under
 * a sync that does not reach the device, restarts, recovers from its peers (amnesia recovery), and
 * delivers the same order as the others; its log records the recovery and reports no amnesia after
 * the clean close that follows.
 */
class PaxosBroadcastAmnesiaTest {
    private static final int N = 3;
    private static final long TIMEOUT_S = 30;
    private static final PaxosConfig CONFIG = PaxosConfig.builder(N).heartbeat(Duration.ofMillis(20))
            .suspect(Duration.ofMillis(200)).retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();

    private final LocalNetwork<PaxosMessage> network = new LocalNetwork<>(N);
    private final InMemoryDurableLog.Storage[] storage = new InMemoryDurableLog.Storage[N];
    private final PaxosBroadcast[] members = new PaxosBroadcast[N];
    private final CrashableLog[] logs = new CrashableLog[N];
    private final List<List<String>> delivered = new ArrayList<>();
    private final CountDownLatch[] latches = new CountDownLatch[N];
    private final CountDownLatch[] firstFifty = new CountDownLatch[N];
    private final SimpleMeterRegistry[] registries = new SimpleMeterRegistry[N];

    @AfterEach
    void closeAll() {
        for (PaxosBroadcast b : members) {
            if (b != null) {
                b.close();
            }
        }
    }

    private void start(int id, int expected) {
        logs[id] = new CrashableLog(InMemoryDurableLog.open(storage[id]));
        registries[id] = new SimpleMeterRegistry();
        members[id] = PaxosBroadcast.builder().config(CONFIG).self(id).transport(network.transport(id))
                .log(logs[id]).clock(SystemClock.INSTANCE)
                .options(RuntimeOptions.builder().meterRegistry(registries[id]).build()).build();
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        delivered.set(id, got);
        CountDownLatch latch = new CountDownLatch(expected);
        CountDownLatch fifty = new CountDownLatch(50);
        latches[id] = latch;
        firstFifty[id] = fifty;
        members[id].start((seq, value) -> {
            got.add(StandardCharsets.UTF_8.decode(value).toString());
            fifty.countDown();
            latch.countDown();
        });
    }

    /** Proposes at whichever member leads, retrying while back-pressure or leadership refuse (as the broadcast contract does). */
    private void proposeAll(int from, int to) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        int target = 0;
        for (int i = from; i < to; ) {
            assertThat(System.nanoTime()).as("proposing v" + i).isLessThan(deadline);
            int hint = members[target].leaderHint();
            if (hint >= 0) {
                target = hint;
            }
            if (members[target].propose(ByteBuffer.wrap(("v" + i).getBytes(StandardCharsets.UTF_8)))) {
                i++;
            } else {
                Thread.yield();
            }
        }
    }

    @Test
    void aReplicaThatLostItsLogRecoversFromItsPeersAndDeliversTheSameOrder() throws InterruptedException {
        for (int i = 0; i < N; i++) {
            storage[i] = new InMemoryDurableLog.Storage();
            storage[i].syncReachesDevice(false);
            delivered.add(null);
            start(i, i == 2 ? 50 : 100);
        }
        proposeAll(0, 50);
        assertThat(latches[2].await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();

        logs[2].crashOnClose = true; // the process dies: no clean close, and the power loss takes every record
        members[2].close();
        storage[2].crash(0);
        start(2, 100);
        // Its recovery needs every instance below H = 50 decided locally: it ends with the 50th
        // delivery. The peers' fences force one view change meanwhile, which may drop proposals
        // in flight at the old leader (as any view change does: clients retry), so propose after.
        assertThat(firstFifty[2].await(TIMEOUT_S, TimeUnit.SECONDS)).as("caught up below H").isTrue();
        proposeAll(50, 100);
        assertThat(latches[2].await(TIMEOUT_S, TimeUnit.SECONDS)).as("the recovered replica delivers everything").isTrue();
        assertThat(latches[0].await(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
        assertThat(delivered.get(2)).hasSize(100).doesNotHaveDuplicates().isEqualTo(delivered.get(0));
        // The gauge follows the protocol thread's next work cycle after recovery ends: wait for it.
        Await.value(Duration.ofSeconds(TIMEOUT_S), () -> registries[2].get("parallax.protocol.recovering").gauge().value(),
                recovering -> recovering == 0, () -> "replica 2's recovering gauge to fall to 0");
        assertThat(registries[2].get("parallax.protocol.recovering").gauge().value()).as("voting again").isZero();

        members[2].close();
        members[2] = null;
        InMemoryDurableLog reopened = InMemoryDurableLog.open(storage[2]);
        List<PaxosRecord> records = new ArrayList<>();
        PaxosRecordCodec codec = new PaxosRecordCodec();
        reopened.read(reopened.firstIndex(), Integer.MAX_VALUE, (i, r) -> records.add(codec.decode(r)));
        assertThat(records).as("the recovery persisted its trim point").anyMatch(r -> r instanceof PaxosRecord.Trim);
        assertThat(reopened.amnesiaPossible()).as("recovered, then closed cleanly").isFalse();
    }

    /** A log whose close can be turned into a crash (the process dies without closing it). */
    private static final class CrashableLog implements DurableLog {
        private final InMemoryDurableLog log;
        volatile boolean crashOnClose;

        CrashableLog(InMemoryDurableLog log) {
            this.log = log;
        }

        @Override
        public long append(ByteBuffer record) {
            return log.append(record);
        }

        @Override
        public void sync() {
            log.sync();
        }

        @Override
        public long firstIndex() {
            return log.firstIndex();
        }

        @Override
        public long nextIndex() {
            return log.nextIndex();
        }

        @Override
        public long durableIndex() {
            return log.durableIndex();
        }

        @Override
        public int read(long fromIndex, int maxRecords, RecordVisitor visitor) {
            return log.read(fromIndex, maxRecords, visitor);
        }

        @Override
        public void truncateBefore(long index) {
            log.truncateBefore(index);
        }

        @Override
        public boolean amnesiaPossible() {
            return log.amnesiaPossible();
        }

        @Override
        public void amnesiaResolved() {
            log.amnesiaResolved();
        }

        @Override
        public void close() {
            if (!crashOnClose) {
                log.close();
            }
        }
    }
}
