package dev.parallax.examples.cli;

import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A closed-loop client whose every operation (random SET or GET on a few shared keys) is recorded
 * for the linearizability checker: an answer records the output, an error or time-out records an
 * unknown outcome. Runs on the calling thread until {@code running} turns false. The invoker is an
 * {@code SmrClient}, or one addressed by {@link KvRouting#invoker} for a cluster that routes by key.
 */
final class HistoryClient {
    private HistoryClient() {
    }

    static void run(int id, CommandInvoker client, HistoryRecorder<dev.parallax.core.check.KvOp, String> history,
                    AtomicBoolean running, int keys, Runnable afterFirstOps) {
        Random rnd = new Random(1000L + id);
        int n = 0;
        while (running.get()) {
            String key = "h" + rnd.nextInt(keys);
            boolean write = rnd.nextBoolean();
            String value = id + "." + n++;
            dev.parallax.core.check.KvOp op = write ? dev.parallax.core.check.KvOp.put(key, value)
                    : dev.parallax.core.check.KvOp.get(key);
            KvCommand cmd = write ? KvCommand.of(KvOp.SET, bytes(key), bytes(value)) : KvCommand.of(KvOp.GET, bytes(key));
            var inv = history.invoke(id, op);
            try {
                KvReply r = KvReply.decode(client.invoke(cmd.encode()).get(30, TimeUnit.SECONDS));
                history.ok(inv, r instanceof KvReply.Bulk b ? new String(b.value(), StandardCharsets.UTF_8) : null);
                if (n == 5) {
                    afterFirstOps.run();
                }
            } catch (Exception e) {
                history.unknown(inv);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
