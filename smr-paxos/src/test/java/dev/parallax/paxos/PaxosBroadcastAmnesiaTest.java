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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
    private static final Duration RETRY = Duration.ofSeconds(2);
    private static final PaxosConfig CONFIG = PaxosConfig.builder(N).heartbeat(Duration.ofMillis(20))
            .suspect(Duration.ofMillis(200)).retransmit(Duration.ofMillis(50)).catchUp(Duration.ofMillis(30)).build();

    private final LocalNetwork<PaxosMessage> network = new LocalNetwork<>(N);
    private final InMemoryDurableLog.Storage[] storage = new InMemoryDurableLog.Storage[N];
    private final PaxosBroadcast[] members = new PaxosBroadcast[N];
    private final CrashableLog[] logs = new CrashableLog[N];
    private final List<List<String>> delivered = new ArrayList<>();
    private final SimpleMeterRegistry[] registries = new SimpleMeterRegistry[N];

    @AfterEach
    void closeAll() {
        for (PaxosBroadcast b : members) {
            if (b != null) {
                b.close();
            }
        }
    }

    private void start(int id) {
        logs[id] = new CrashableLog(InMemoryDurableLog.open(storage[id]));
        registries[id] = new SimpleMeterRegistry();
        members[id] = PaxosBroadcast.builder().config(CONFIG).self(id).transport(network.transport(id))
                .log(logs[id]).clock(SystemClock.INSTANCE)
                .options(RuntimeOptions.builder().meterRegistry(registries[id]).build()).build();
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        delivered.set(id, got);
        members[id].start((seq, value) -> got.add(StandardCharsets.UTF_8.decode(value).toString()));
    }

    /** Proposes at whichever member leads, retrying while back-pressure or leadership refuse (as the broadcast contract does). */
    private void proposeAll(List<String> values) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        int target = 0;
        for (int i = 0; i < values.size(); ) {
            assertThat(System.nanoTime()).as("proposing " + values.get(i)).isLessThan(deadline);
            int hint = members[target].leaderHint();
            if (hint >= 0) {
                target = hint;
            }
            if (members[target].propose(ByteBuffer.wrap(values.get(i).getBytes(StandardCharsets.UTF_8)))) {
                i++;
            } else {
                Thread.yield();
            }
        }
    }

    /**
     * Proposes v{@code from} to v{@code to - 1} and waits until replica 0 delivered each. An
     * accepted proposal may still be dropped by a view change (the contract: clients retry); one
     * replica 0 has not delivered within {@link #RETRY} is proposed again, tagged with the attempt
     * ("v57#1") so no two proposals carry the same value.
     */
    private void proposeUntilDelivered(int from, int to) throws InterruptedException {
        proposeAll(values(from, to, 0));
        long[] lastTry = {System.nanoTime()};
        int[] attempt = {0};
        Await.until(Duration.ofSeconds(TIMEOUT_S), () -> {
            List<Integer> missing = missing(from, to);
            if (missing.isEmpty()) {
                return true;
            }
            if (System.nanoTime() - lastTry[0] > RETRY.toNanos()) {
                attempt[0]++;
                List<String> again = new ArrayList<>();
                for (int i : missing) {
                    again.add("v" + i + "#" + attempt[0]);
                }
                proposeAll(again);
                lastTry[0] = System.nanoTime();
            }
            return false;
        }, () -> "replica 0 to deliver v" + from + " to v" + (to - 1) + "; missing " + missing(from, to));
    }

    private static List<String> values(int from, int to, int attempt) {
        List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add(attempt == 0 ? "v" + i : "v" + i + "#" + attempt);
        }
        return values;
    }

    /** The numbers in [from, to) of which replica 0 has delivered no proposal yet. */
    private List<Integer> missing(int from, int to) {
        Set<Integer> seen = new HashSet<>();
        for (String v : snapshot(0)) {
            int hash = v.indexOf('#');
            seen.add(Integer.parseInt(hash < 0 ? v.substring(1) : v.substring(1, hash)));
        }
        List<Integer> missing = new ArrayList<>();
        for (int i = from; i < to; i++) {
            if (!seen.contains(i)) {
                missing.add(i);
            }
        }
        return missing;
    }

    private List<String> snapshot(int id) {
        List<String> got = delivered.get(id);
        synchronized (got) {
            return new ArrayList<>(got);
        }
    }

    @Test
    void aReplicaThatLostItsLogRecoversFromItsPeersAndDeliversTheSameOrder() throws InterruptedException {
        for (int i = 0; i < N; i++) {
            storage[i] = new InMemoryDurableLog.Storage();
            storage[i].syncReachesDevice(false);
            delivered.add(null);
            start(i);
        }
        proposeUntilDelivered(0, 50);
        Await.until(Duration.ofSeconds(TIMEOUT_S), () -> snapshot(2).size() >= snapshot(0).size(),
                () -> "replica 2 to deliver what replica 0 did: " + snapshot(2).size() + " of " + snapshot(0).size());
        int beforeCrash = snapshot(2).size();

        logs[2].crashOnClose = true; // the process dies: no clean close, and the power loss takes every record
        members[2].close();
        storage[2].crash(0);
        start(2);
        // Its recovery needs every instance below H decided locally: it ends with the delivery of
        // what it had delivered before. The peers' fences force a view change meanwhile, which may
        // drop proposals in flight at the old leader (clients retry, as proposeUntilDelivered does).
        Await.until(Duration.ofSeconds(TIMEOUT_S), () -> snapshot(2).size() >= beforeCrash,
                () -> "replica 2 to catch up below H: " + snapshot(2).size() + " of " + beforeCrash);
        proposeUntilDelivered(50, 100);
        Await.untilAsserted(Duration.ofSeconds(TIMEOUT_S), () -> assertThat(snapshot(2))
                .as("the recovered replica delivers everything, in replica 0's order")
                .doesNotHaveDuplicates().isEqualTo(snapshot(0)));
        assertThat(missing(0, 100)).isEmpty();
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
