package dev.parallax.examples.cli;

import dev.parallax.core.check.CheckBudget;
import dev.parallax.core.check.CheckResult;
import dev.parallax.core.check.HistoryRecorder;
import dev.parallax.core.check.KvModel;
import dev.parallax.core.check.LinearizabilityChecker;
import dev.parallax.core.client.CommandInvoker;
import dev.parallax.examples.kv.KvCommand;
import dev.parallax.examples.kv.KvOp;
import dev.parallax.examples.kv.KvReply;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A closed-loop client whose every operation (random SET or GET on a few shared keys, and with a
 * {@link Workload} that says so the global commands DBSIZE and FLUSHALL) is recorded for the
 * linearizability checker: an answer records the output, an error or time-out records an
 * unknown outcome. Runs on the calling thread until {@code running} turns false. The invoker is an
 * {@code SmrClient}, or one addressed by {@link KvRouting#invoker} for a cluster that routes by key
 * (there the global commands go to every group, {@link dev.parallax.examples.kv.KvRouter}).
 */
final class HistoryClient {
    private HistoryClient() {
    }

    /**
     * What a history client issues: SET or GET (even odds) on the keys {@code h0 .. h<keys-1>},
     * and DBSIZE and FLUSHALL with the given shares of all operations. A history with a global
     * command is checked as one partition ({@link dev.parallax.core.check.KvModel#partition}), so
     * global commands want a small key space to keep the check fast. Immutable.
     *
     * @param keys          the number of keys, at least 1
     * @param dbSizeShare   the share of DBSIZE, 0 to 1
     * @param flushAllShare the share of FLUSHALL, 0 to 1 - {@code dbSizeShare}
     */
    record Workload(int keys, double dbSizeShare, double flushAllShare) {
        /**
         * Validates the components.
         *
         * @throws IllegalArgumentException if a component is out of range
         */
        Workload {
            if (keys < 1 || dbSizeShare < 0 || flushAllShare < 0 || dbSizeShare + flushAllShare > 1) {
                throw new IllegalArgumentException("keys " + keys + ", DBSIZE share " + dbSizeShare
                        + ", FLUSHALL share " + flushAllShare);
            }
        }

        /** SET and GET only, on {@code keys} keys. */
        static Workload perKey(int keys) {
            return new Workload(keys, 0, 0);
        }

        /** SET and GET on {@code keys} keys, 5% DBSIZE and 1% FLUSHALL. */
        static Workload withGlobalCommands(int keys) {
            return new Workload(keys, 0.05, 0.01);
        }

        boolean hasGlobalCommands() {
            return dbSizeShare + flushAllShare > 0;
        }
    }

    /**
     * The linearizability verdict of a chaos run's {@code history} of registers ({@link KvModel},
     * the key-value store's or Volery's znodes), within a 120 s budget. Blocks the caller for the check.
     */
    static CheckResult check(HistoryRecorder<dev.parallax.core.check.KvOp, String> history) {
        return LinearizabilityChecker.check(new KvModel(), history.history(), CheckBudget.ofTime(Duration.ofSeconds(120)));
    }

    /** {@link #run(int, CommandInvoker, HistoryRecorder, AtomicBoolean, Workload, Runnable)} with SET and GET on {@code keys} keys. */
    static void run(int id, CommandInvoker client, HistoryRecorder<dev.parallax.core.check.KvOp, String> history,
                    AtomicBoolean running, int keys, Runnable afterFirstOps) {
        run(id, client, history, running, Workload.perKey(keys), afterFirstOps);
    }

    /**
     * Issues {@code workload}'s operations one at a time through {@code client}, recording each in
     * {@code history} as client {@code id}, until {@code running} turns false; runs
     * {@code afterFirstOps} once, after the fifth answer. Blocks the calling thread (each
     * operation waits up to 30 s for its reply).
     */
    static void run(int id, CommandInvoker client, HistoryRecorder<dev.parallax.core.check.KvOp, String> history,
                    AtomicBoolean running, Workload workload, Runnable afterFirstOps) {
        Random rnd = new Random(1000L + id);
        int n = 0;
        while (running.get()) {
            String key = "h" + rnd.nextInt(workload.keys());
            boolean write = rnd.nextBoolean();
            String value = id + "." + n++;
            // Draws only with global commands, so that per-key workloads stay as they were.
            double global = workload.hasGlobalCommands() ? rnd.nextDouble() : 1;
            dev.parallax.core.check.KvOp op = global < workload.dbSizeShare() ? dev.parallax.core.check.KvOp.dbSize()
                    : global < workload.dbSizeShare() + workload.flushAllShare() ? dev.parallax.core.check.KvOp.flushAll()
                    : write ? dev.parallax.core.check.KvOp.put(key, value)
                    : dev.parallax.core.check.KvOp.get(key);
            if (call(id, client, history, op) && n == 5) {
                afterFirstOps.run();
            }
        }
    }

    /**
     * Issues {@code op} (GET, SET, DBSIZE or FLUSHALL) through {@code client} and records it in
     * {@code history} as client {@code id}: the output if answered within 30 s, else an unknown
     * outcome. A read-only operation goes as a query ({@link CommandInvoker#query}). Blocks the
     * calling thread until then.
     *
     * @return whether it was answered
     * @throws IllegalArgumentException for an operation the KV store has no command for (delete,
     *     append)
     */
    static boolean call(int id, CommandInvoker client, HistoryRecorder<dev.parallax.core.check.KvOp, String> history,
                        dev.parallax.core.check.KvOp op) {
        KvCommand cmd = command(op);
        var inv = history.invoke(id, op);
        try {
            // Reads go as queries (read-index where the ordering has it, else ordered): checked as any operation.
            ByteBuffer bytes = cmd.encode();
            KvReply r = KvReply.decode((cmd.op().isReadOnly() ? client.query(bytes) : client.invoke(bytes)).get(30, TimeUnit.SECONDS));
            history.ok(inv, output(op, r));
            return true;
        } catch (Exception e) {
            history.unknown(inv);
            return false;
        }
    }

    private static KvCommand command(dev.parallax.core.check.KvOp op) {
        if (op instanceof dev.parallax.core.check.KvOp.Get get) {
            return KvCommand.of(KvOp.GET, bytes(get.key()));
        }
        if (op instanceof dev.parallax.core.check.KvOp.Put put) {
            return KvCommand.of(KvOp.SET, bytes(put.key()), bytes(put.value()));
        }
        if (op instanceof dev.parallax.core.check.KvOp.DbSize) {
            return KvCommand.of(KvOp.DBSIZE);
        }
        if (op instanceof dev.parallax.core.check.KvOp.FlushAll) {
            return KvCommand.of(KvOp.FLUSHALL);
        }
        throw new IllegalArgumentException("no KV store command for " + op);
    }

    /**
     * The checker's output for the store's reply {@code r} to {@code op}: a GET's value (null for
     * nil), DBSIZE's count as a decimal string, {@code OK} for the OK status. A reply of the wrong
     * kind for a DBSIZE is recorded as its description, which no count matches, so the checker
     * reports it.
     */
    static String output(dev.parallax.core.check.KvOp op, KvReply r) {
        if (op instanceof dev.parallax.core.check.KvOp.DbSize) {
            return r instanceof KvReply.Int count ? Long.toString(count.value()) : "unexpected reply " + r;
        }
        if (r instanceof KvReply.Bulk b) {
            return new String(b.value(), StandardCharsets.UTF_8);
        }
        return r instanceof KvReply.Ok ? "OK" : null;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
