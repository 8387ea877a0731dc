package dev.parallax.ringpaxos;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link RingPaxosBroadcast} hands its {@code DeliveryListener} for each kind of decided value (plan decision 4). */
class SkipDeliveryTest {

    @Test
    @DisplayName("with skipDelivery a decided SKIP(upTo) delivers encoder(upTo); without it nothing, like a NOOP (plan decision 4)")
    void skipsAreDeliveredOnlyThroughTheEncoder() {
        ByteBuffer batch = ByteBuffer.wrap(new byte[]{1, 2}).asReadOnlyBuffer();
        RingValue.Chosen client = new RingValue.Chosen(new ValueId(0, 1, 1), batch);
        RingValue.Chosen noop = new RingValue.Chosen(ValueId.NOOP, null);
        RingValue.Chosen skip = new RingValue.Chosen(ValueId.skip(4242), null);
        java.util.function.LongFunction<ByteBuffer> encoder = upTo -> ByteBuffer.allocate(8).putLong(0, upTo);

        assertThat(RingPaxosBroadcast.delivery(client, encoder)).isSameAs(batch);
        assertThat(RingPaxosBroadcast.delivery(noop, encoder)).isNull();
        assertThat(RingPaxosBroadcast.delivery(skip, encoder).getLong(0)).isEqualTo(4242);
        assertThat(RingPaxosBroadcast.delivery(skip, null)).isNull();
        assertThat(RingPaxosBroadcast.delivery(noop, null)).isNull();
        assertThat(RingPaxosBroadcast.delivery(client, null)).isSameAs(batch);
        assertThat(RingPaxosBroadcast.delivery(new RingValue.ClientBatch(batch), encoder)).isNull();
        assertThatThrownBy(() -> RingPaxosBroadcast.builder().skipDelivery(null)).isInstanceOf(NullPointerException.class);
    }
}
