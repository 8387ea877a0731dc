package dev.parallax.core.log;

import dev.parallax.core.spi.SyncPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Option defaults, validation, and the Chronicle block size derived from the record limit. */
class ChronicleLogOptionsTest {

    @Test
    void defaultsAreEveryBatchWithBoundedSegmentsAndRecords() {
        ChronicleLogOptions o = ChronicleLogOptions.defaults();
        assertThat(o.syncPolicy()).isEqualTo(SyncPolicy.EVERY_BATCH);
        assertThat(o.segmentBytes()).isEqualTo(64L << 20);
        assertThat(o.maxRecordBytes()).isEqualTo(4 << 20);
        assertThat(o.withSyncPolicy(SyncPolicy.NONE).withSegmentBytes(1).syncPolicy()).isEqualTo(SyncPolicy.NONE);
    }

    @Test
    void outOfRangeValuesAreRejected() {
        ChronicleLogOptions o = ChronicleLogOptions.defaults();
        assertThatThrownBy(() -> o.withSegmentBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withMaxRecordBytes(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withMaxRecordBytes(ChronicleLogOptions.MAX_RECORD_BYTES_LIMIT + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withDiskReserveBytes(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withSyncInterval(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withSyncPolicy(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> o.withClock(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theMappingChunkHoldsTheLargestRecordInItsOverlap() {
        for (int max : new int[]{0, 1, 1 << 20, 4 << 20, ChronicleLogOptions.MAX_RECORD_BYTES_LIMIT}) {
            long block = LogOpener.blockSize(max);
            assertThat(Long.bitCount(block)).isEqualTo(1);
            assertThat(block / 4).isGreaterThanOrEqualTo(max + LogRecordFormat.RECORD_HEADER_BYTES + 64L);
        }
    }
}
