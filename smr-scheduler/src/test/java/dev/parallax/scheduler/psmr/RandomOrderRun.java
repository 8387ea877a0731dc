package dev.parallax.scheduler.psmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.ResultSink;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.fail;

/**
 * One run of {@link PsmrWorkers} on a random total order, simulating per-worker subscriptions: the
 * total order is generated first, then k delivery threads each deliver exactly the commands whose
 * worker set contains their worker, in that order. A watchdog fails the run if the delivery
 * threads stop making progress, with a dump of what every worker waits for.
 *
 * <p>γ: 80% one random group, 12% two, 6% three or four, 2% every group, of {@code 2k} groups (so
 * that {@code g mod k} folds some multi-group commands onto one worker). Commands are built on the
 * fly from compact arrays (a million {@link Command} objects would not be small).
 */
final class RandomOrderRun {
    /** Fails the run when no delivery thread progressed for this long (a generous event wait). */
    static final long STALL_SECONDS = 60;

    final int k;
    final int n;
    final int groups;
    final long[] groupBits;
    final int[] xs;
    final GroupMachine machine;
    /** The reply of each command as 8 bytes, or Long.MIN_VALUE for an error result. */
    final AtomicLongArray replies;
    final AtomicIntegerArray resultCounts;
    final List<Throwable> fatal = new ArrayList<>();
    /** Worker i's stream: the total order restricted to the commands whose W contains i. */
    final int[][] streams;

    RandomOrderRun(int k, int n, long seed) {
        this.k = k;
        this.n = n;
        this.groups = 2 * k;
        this.groupBits = new long[n];
        this.xs = new int[n];
        SplittableRandom r = new SplittableRandom(seed);
        int[] sizes = new int[k];
        for (int i = 0; i < n; i++) {
            double p = r.nextDouble();
            int count = Math.min(groups, p < 0.80 ? 1 : p < 0.92 ? 2 : p < 0.98 ? 3 + r.nextInt(2) : groups);
            long bits = 0;
            while (Long.bitCount(bits) < count) {
                bits |= 1L << r.nextInt(groups);
            }
            groupBits[i] = bits;
            xs[i] = r.nextInt(1000);
            long w = PsmrWorkers.workersOf(GroupSet.ofBits(bits), k);
            for (long rest = w; rest != 0; rest &= rest - 1) {
                sizes[Long.numberOfTrailingZeros(rest)]++;
            }
        }
        streams = new int[k][];
        int[] fill = new int[k];
        for (int i = 0; i < k; i++) {
            streams[i] = new int[sizes[i]];
        }
        for (int c = 0; c < n; c++) {
            long w = PsmrWorkers.workersOf(GroupSet.ofBits(groupBits[c]), k);
            for (long rest = w; rest != 0; rest &= rest - 1) {
                int i = Long.numberOfTrailingZeros(rest);
                streams[i][fill[i]++] = c;
            }
        }
        this.machine = new GroupMachine(n, GroupMachine::workerOfCurrentThread);
        this.replies = new AtomicLongArray(n);
        this.resultCounts = new AtomicIntegerArray(n);
    }

    Command command(int index) {
        return GroupMachine.command(index, GroupSet.ofBits(groupBits[index]), xs[index], GroupMachine.OK);
    }

    /** Records every result in {@link #replies} and {@link #resultCounts}, and fatal errors. */
    final ResultSink sink = new ResultSink() {
        @Override
        public void onResult(Command command, CommandResult result) {
            int index = GroupMachine.index(command);
            replies.set(index, result.isError() ? Long.MIN_VALUE : result.reply().getLong(0));
            resultCounts.incrementAndGet(index);
        }

        @Override
        public void onFatal(Command command, Throwable error) {
            synchronized (fatal) {
                fatal.add(error);
            }
        }
    };

    /** Executes the total order on {@code k} delivery threads with the given executor choice. */
    void run(ExecutorChoice choice) throws InterruptedException {
        run(choice, STALL_SECONDS);
    }

    /** As {@link #run(ExecutorChoice)}, failing after {@code stallSeconds} without progress. */
    void run(ExecutorChoice choice, long stallSeconds) throws InterruptedException {
        PsmrWorkers group = new PsmrWorkers(k, machine, sink, choice);
        AtomicIntegerArray progress = new AtomicIntegerArray(k);
        ConcurrentLinkedQueue<Throwable> thrown = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(k);
        Thread[] threads = new Thread[k];
        for (int i = 0; i < k; i++) {
            int id = i;
            threads[i] = new Thread(() -> {
                Driver.WORKER.set(id);
                PsmrWorkers.Worker w = group.worker(id);
                try {
                    int[] stream = streams[id];
                    for (int p = 0; p < stream.length; p++) {
                        w.deliver(command(stream[p]));
                        progress.lazySet(id, p + 1);
                    }
                } catch (Throwable t) {
                    thrown.add(t);
                } finally {
                    done.countDown();
                }
            }, "psmr-delivery-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        long last = -1;
        long lastChange = System.nanoTime();
        while (!done.await(1, TimeUnit.SECONDS)) {
            long sum = 0;
            for (int i = 0; i < k; i++) {
                sum += progress.get(i);
            }
            if (sum != last) {
                last = sum;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(stallSeconds)) {
                String dump = dump(group, progress);
                group.close();
                fail("no progress for " + stallSeconds + " s:\n" + dump);
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!thrown.isEmpty()) {
            AssertionError e = new AssertionError("delivery threads threw");
            thrown.forEach(e::addSuppressed);
            throw e;
        }
    }

    private String dump(PsmrWorkers group, AtomicIntegerArray progress) {
        StringBuilder b = new StringBuilder(group.waitReport());
        for (int i = 0; i < k; i++) {
            int p = progress.get(i);
            b.append("delivery ").append(i).append(": delivered ").append(p).append('/').append(streams[i].length);
            if (p < streams[i].length) {
                int c = streams[i][p];
                b.append(", at command ").append(c).append(" groups ").append(GroupSet.ofBits(groupBits[c]));
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** The replies and final registers of executing the total order on one thread. */
    Sequential sequential() {
        GroupMachine reference = new GroupMachine(n, () -> -1);
        long[] expected = new long[n];
        for (int c = 0; c < n; c++) {
            ByteBuffer reply = reference.execute(command(c).payload());
            expected[c] = reply.getLong(0);
        }
        return new Sequential(expected, reference.registers());
    }

    record Sequential(long[] replies, long[] registers) {
    }
}
