package dev.parallax.examples.kv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;

/** Helpers shared by the KV tests. */
final class KvTesting {
    private KvTesting() {
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static KvReply run(KvStateMachine sm, KvOp op, byte[]... args) {
        return KvReply.decode(sm.execute(KvCommand.of(op, args).encode()));
    }

    static KvReply run(KvStateMachine sm, KvOp op, String... args) {
        byte[][] bytes = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            bytes[i] = b(args[i]);
        }
        return run(sm, op, bytes);
    }

    static KvReply bulk(String s) {
        return new KvReply.Bulk(b(s));
    }

    static byte[] snapshot(KvStateMachine sm) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            sm.snapshot(Channels.newChannel(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static void restore(KvStateMachine sm, byte[] snapshot) throws IOException {
        sm.restore(Channels.newChannel(new ByteArrayInputStream(snapshot)));
    }

    static ByteBuffer bytes(byte[] b) {
        return ByteBuffer.wrap(b);
    }
}
