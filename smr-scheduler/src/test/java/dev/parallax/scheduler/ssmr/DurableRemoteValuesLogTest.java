package dev.parallax.scheduler.ssmr;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import dev.parallax.core.log.memory.InMemoryDurableLog;
import dev.parallax.core.spi.DurableLog;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** S-SMR recovery: the remote values a command read are logged with it, so that a restart re-executes it identically. */
class DurableRemoteValuesLogTest {
    private static final GroupSet BOTH = GroupSet.of(0, 1);

    private static RemoteValues values(int partition, String v) {
        return RemoteValues.of(Map.of(partition, ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    @DisplayName("entries of multi-partition commands survive a restart; commands of this partition alone are not written")
    void entriesSurviveARestart() {
        InMemoryDurableLog.Storage disk = new InMemoryDurableLog.Storage();
        CommandId global = new CommandId(7, BOTH, 1);
        CommandId signalOnly = new CommandId(7, BOTH, 2);
        CommandId local = new CommandId(7, GroupSet.of(0), 1);
        try (DurableRemoteValuesLog log = DurableRemoteValuesLog.open(InMemoryDurableLog.open(disk), 0)) {
            log.append(1, global, values(1, "x=10"));
            log.append(2, local, RemoteValues.NONE);
            log.append(3, signalOnly, RemoteValues.NONE);
            assertThat(log.size()).isEqualTo(2);
        }
        try (DurableRemoteValuesLog log = DurableRemoteValuesLog.open(InMemoryDurableLog.open(disk), 0)) {
            assertThat(log.lookup(global)).contains(values(1, "x=10"));
            assertThat(log.lookup(signalOnly)).as("signals only: the entry says they all arrived").contains(RemoteValues.NONE);
            assertThat(log.lookup(local)).isEmpty();
        }
    }

    @Test
    @DisplayName("truncation drops entries through a finish index and the log records below the first kept one; a replayed command keeps its newest entry")
    void truncation() {
        InMemoryDurableLog durable = InMemoryDurableLog.create();
        DurableRemoteValuesLog log = DurableRemoteValuesLog.open(durable, 1);
        CommandId a = new CommandId(1, BOTH, 1);
        CommandId b = new CommandId(2, BOTH, 1);
        log.append(1, a, values(0, "a"));
        log.append(2, b, values(0, "b"));
        log.append(3, a, values(0, "a")); // a replay after a restart appends it again, later
        log.truncateThrough(1);
        assertThat(log.lookup(a)).as("its newer entry stays").contains(values(0, "a"));
        assertThat(log.lookup(b)).contains(values(0, "b"));
        assertThat(durable.firstIndex()).isEqualTo(1);
        log.truncateThrough(3);
        assertThat(log.lookup(a)).isEmpty();
        assertThat(log.lookup(b)).isEmpty();
        assertThat(log.size()).isZero();
        assertThat(durable.firstIndex()).isEqualTo(durable.nextIndex());
        DurableRemoteValuesLog reopened = DurableRemoteValuesLog.open(durable, 1);
        assertThat(reopened.size()).isZero();
    }

    @Test
    @DisplayName("a record that is not an entry stops the open with a message naming the log and the record")
    void aCorruptRecordIsNamed() {
        DurableLog durable = InMemoryDurableLog.create();
        durable.append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThatThrownBy(() -> DurableRemoteValuesLog.open(durable, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("log ssmr-values: record 0 is not an S-SMR remote-values entry");
    }
}
