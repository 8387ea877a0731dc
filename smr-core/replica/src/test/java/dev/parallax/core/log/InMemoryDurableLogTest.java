package dev.parallax.core.log;

import dev.parallax.core.log.memory.InMemoryDurableLog;

import dev.parallax.core.spi.DurableLog;
import dev.parallax.core.testkit.DurableLogContract;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The in-memory log passes the shared {@link DurableLogContract}, plus its crash-model specifics. */
class InMemoryDurableLogTest extends DurableLogContract {
    private final InMemoryDurableLog.Storage storage = new InMemoryDurableLog.Storage();
    private int keepUnsynced;

    @Override
    protected DurableLog openLog() {
        return InMemoryDurableLog.open(storage);
    }

    @Override
    protected void crash(DurableLog open) {
        storage.crash(keepUnsynced);
    }

    @Override
    protected void breakStorage(DurableLog open) {
        storage.failWrites(true);
    }

    @Test
    void crashKeepsExactlyTheChosenNumberOfUnsyncedRecords() {
        log().append(bytes("a"));
        log().sync();
        log().append(bytes("b"));
        log().append(bytes("c"));
        log().append(bytes("d"));
        assertThat(storage.unsyncedCount()).isEqualTo(3);
        keepUnsynced = 2;
        DurableLog reopened = reopenAfterCrash();
        assertThat(readAll(reopened, 0)).containsExactly("a", "b", "c");
        assertThat(reopened.durableIndex()).isEqualTo(3);
    }

    @Test
    void anUnsyncedTruncationIsUndoneByACrash() {
        log().append(bytes("a"));
        log().append(bytes("b"));
        log().sync();
        log().truncateBefore(1);
        DurableLog reopened = reopenAfterCrash();
        assertThat(reopened.firstIndex()).isZero();
        assertThat(readAll(reopened, 0)).containsExactly("a", "b");
    }

    @Test
    void onlyOneOpenLogPerStorage() {
        log();
        assertThatThrownBy(() -> InMemoryDurableLog.open(storage)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void recordsHandedToVisitorsAreReadOnlyViews() {
        log().append(bytes("x"));
        List<ByteBuffer> seen = new ArrayList<>();
        log().read(0, 1, (i, r) -> seen.add(r));
        assertThat(seen.get(0).isReadOnly()).isTrue();
    }
}
