package dev.parallax.core.multicast;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

/**
 * Wire form of a {@link MulticastForward}: frame type 1, {@code stream:4 envelope:bytes}.
 * Stateless and thread-safe; malformed bodies raise {@link MalformedMessageException}.
 */
public final class MulticastForwardCodec implements MessageCodec<MulticastForward> {
    private static final int FORWARD = 1;

    @Override
    public int type(MulticastForward message) {
        return FORWARD;
    }

    @Override
    public void encode(MulticastForward m, WireWriter out) {
        out.putInt(m.stream()).putBytes(m.envelope());
    }

    @Override
    public MulticastForward decode(int type, WireReader body) {
        if (type != FORWARD) {
            throw new MalformedMessageException("unknown multicast forward type " + type);
        }
        int stream = body.getInt();
        MulticastForward f = new MulticastForward(stream, body.getBuffer().asReadOnlyBuffer());
        body.end();
        return f;
    }
}
