package dev.parallax.core.testkit;

import dev.parallax.core.spi.MalformedMessageException;
import dev.parallax.core.spi.MessageCodec;
import dev.parallax.core.spi.WireReader;
import dev.parallax.core.spi.WireWriter;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A {@link MessageCodec} of strings, for transport tests: each string is a UTF-8 body of message
 * type 1; any other type, or trailing bytes, is a {@link MalformedMessageException} as the codec
 * contract asks. Stateless and thread-safe.
 */
public final class TextCodec implements MessageCodec<String> {
    /** The one instance. */
    public static final TextCodec INSTANCE = new TextCodec();

    private TextCodec() {
    }

    @Override
    public int type(String message) {
        return 1;
    }

    @Override
    public void encode(String message, WireWriter out) {
        out.putBytes(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public String decode(int type, WireReader body) {
        if (type != 1) {
            throw new MalformedMessageException("unknown type " + type);
        }
        String s = new String(body.getBytes(), StandardCharsets.UTF_8);
        body.end();
        return s;
    }
}
