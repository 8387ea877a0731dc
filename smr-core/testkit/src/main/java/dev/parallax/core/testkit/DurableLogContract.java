package dev.parallax.core.testkit;

import dev.parallax.core.spi.DurableLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link DurableLog} implementation must pass (see the interface's Javadoc).
 * Subclass it and implement the three fixture methods; every implementation runs the same tests.
 */
public abstract class DurableLogContract {
    private DurableLog log;

    /** Opens the log over this test's storage (fresh storage at the first call of a test). */
    protected abstract DurableLog openLog();

    /**
     * Simulates a process crash of {@code open}: release it without syncing, as if the process
     * died; unsynced records may or may not survive, per the contract.
     */
    protected abstract void crash(DurableLog open);

    /** Makes writes and syncs of the open log fail, as a full or broken disk does. */
    protected abstract void breakStorage(DurableLog open);

    protected final DurableLog log() {
        if (log == null) {
            log = openLog();
        }
        return log;
    }

    protected final DurableLog reopenAfterCrash() {
        crash(log());
        log = openLog();
        return log;
    }

    protected final DurableLog reopenCleanly() {
        log().close();
        log = openLog();
        return log;
    }

    @AfterEach
    final void closeLog() {
        if (log != null) {
            log.close();
        }
    }

    protected static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    protected static List<String> readAll(DurableLog log, long from) {
        List<String> out = new ArrayList<>();
        long[] expect = {from};
        log.read(from, Integer.MAX_VALUE, (index, record) -> {
            assertThat(index).as("indexes are contiguous").isEqualTo(expect[0]++);
            byte[] b = new byte[record.remaining()];
            record.get(b);
            out.add(new String(b, StandardCharsets.UTF_8));
        });
        return out;
    }

    @Test
    void emptyLogStartsAtZero() {
        assertThat(log().firstIndex()).isZero();
        assertThat(log().nextIndex()).isZero();
        assertThat(log().durableIndex()).isZero();
        assertThat(readAll(log(), 0)).isEmpty();
    }

    @Test
    void appendReturnsContiguousIndexesAndReadsBackInOrder() {
        for (int i = 0; i < 100; i++) {
            assertThat(log().append(bytes("r" + i))).isEqualTo(i);
        }
        List<String> all = readAll(log(), 0);
        assertThat(all).hasSize(100);
        assertThat(all.get(0)).isEqualTo("r0");
        assertThat(all.get(99)).isEqualTo("r99");
        assertThat(readAll(log(), 95)).containsExactly("r95", "r96", "r97", "r98", "r99");
    }

    @Test
    void appendDoesNotMoveTheCallersBuffer() {
        ByteBuffer b = bytes("abc");
        log().append(b);
        assertThat(b.position()).isZero();
        assertThat(b.remaining()).isEqualTo(3);
    }

    @Test
    void emptyAndLargeRecordsRoundTrip() {
        byte[] big = new byte[1 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        log().append(ByteBuffer.allocate(0));
        log().append(ByteBuffer.wrap(big));
        log().sync();
        DurableLog reopened = reopenCleanly();
        List<byte[]> seen = new ArrayList<>();
        reopened.read(0, 10, (i, r) -> {
            byte[] b = new byte[r.remaining()];
            r.get(b);
            seen.add(b);
        });
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0)).isEmpty();
        assertThat(seen.get(1)).isEqualTo(big);
    }

    @Test
    void readRespectsTheLimit() {
        for (int i = 0; i < 10; i++) {
            log().append(bytes("r" + i));
        }
        List<Long> indexes = new ArrayList<>();
        int n = log().read(3, 4, (i, r) -> indexes.add(i));
        assertThat(n).isEqualTo(4);
        assertThat(indexes).containsExactly(3L, 4L, 5L, 6L);
        assertThat(log().read(10, 5, (i, r) -> indexes.add(i))).isZero();
    }

    @Test
    void syncedRecordsSurviveACrash() {
        for (int i = 0; i < 20; i++) {
            log().append(bytes("r" + i));
        }
        log().sync();
        assertThat(log().durableIndex()).isEqualTo(20);
        DurableLog reopened = reopenAfterCrash();
        assertThat(readAll(reopened, 0)).hasSizeGreaterThanOrEqualTo(20).startsWith("r0", "r1");
        assertThat(reopened.nextIndex()).isGreaterThanOrEqualTo(20);
    }

    @Test
    void aCrashLeavesAPrefixWithoutGaps() {
        for (int i = 0; i < 10; i++) {
            log().append(bytes("s" + i));
        }
        log().sync();
        for (int i = 10; i < 30; i++) {
            log().append(bytes("s" + i));
        }
        DurableLog reopened = reopenAfterCrash();
        List<String> all = readAll(reopened, 0);
        assertThat(all.size()).isBetween(10, 30);
        for (int i = 0; i < all.size(); i++) {
            assertThat(all.get(i)).isEqualTo("s" + i);
        }
        assertThat(reopened.nextIndex()).isEqualTo(all.size());
        assertThat(reopened.append(bytes("next"))).isEqualTo(all.size());
    }

    @Test
    void appendsContinueAfterReopen() {
        log().append(bytes("a"));
        log().append(bytes("b"));
        log().sync();
        DurableLog reopened = reopenCleanly();
        assertThat(reopened.append(bytes("c"))).isEqualTo(2);
        reopened.sync();
        assertThat(readAll(reopenCleanly(), 0)).containsExactly("a", "b", "c");
    }

    @Test
    void truncateBeforeDropsThePrefixDurably() {
        for (int i = 0; i < 10; i++) {
            log().append(bytes("r" + i));
        }
        log().truncateBefore(6);
        log().sync();
        assertThat(log().firstIndex()).isEqualTo(6);
        assertThat(readAll(log(), 6)).containsExactly("r6", "r7", "r8", "r9");
        assertThatThrownBy(() -> log().read(5, 1, (i, r) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trimmed");
        DurableLog reopened = reopenAfterCrash();
        assertThat(reopened.firstIndex()).isEqualTo(6);
        assertThat(reopened.nextIndex()).isEqualTo(10);
        assertThat(reopened.append(bytes("r10"))).isEqualTo(10);
    }

    @Test
    void truncateEverythingThenAppend() {
        log().append(bytes("a"));
        log().append(bytes("b"));
        log().truncateBefore(2);
        log().sync();
        assertThat(log().firstIndex()).isEqualTo(2);
        assertThat(readAll(log(), 2)).isEmpty();
        assertThat(log().append(bytes("c"))).isEqualTo(2);
        log().sync();
        assertThat(readAll(reopenCleanly(), 2)).containsExactly("c");
    }

    @Test
    void truncateIsMonotonicAndBounded() {
        log().append(bytes("a"));
        log().append(bytes("b"));
        log().truncateBefore(1);
        log().truncateBefore(0);
        assertThat(log().firstIndex()).isEqualTo(1);
        assertThatThrownBy(() -> log().truncateBefore(3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void negativeReadIndexIsRejected() {
        assertThatThrownBy(() -> log().read(-1, 1, (i, r) -> { })).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closedLogRefusesEveryCall() {
        DurableLog l = log();
        l.close();
        l.close();
        assertThatThrownBy(() -> l.append(bytes("x"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(l::sync).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> l.read(0, 1, (i, r) -> { })).isInstanceOf(IllegalStateException.class);
        log = openLog();
    }

    @Test
    void brokenStorageFailsLoudlyAndKeepsSyncedRecords() {
        log().append(bytes("kept"));
        log().sync();
        breakStorage(log());
        assertThatThrownBy(() -> {
            log().append(bytes("lost"));
            log().sync();
        }).isInstanceOf(dev.parallax.core.spi.DurableLogException.class);
        assertThat(log().durableIndex()).isEqualTo(1);
    }
}
