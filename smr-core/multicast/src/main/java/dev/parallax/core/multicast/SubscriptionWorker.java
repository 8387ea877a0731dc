package dev.parallax.core.multicast;

import dev.parallax.core.exec.Joins;

import dev.parallax.core.GroupSet;
import dev.parallax.core.spi.MulticastListener;
import dev.parallax.core.spi.MulticastPosition;
import dev.parallax.core.spi.Subscription;
import dev.parallax.core.stage.StageThreads;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One {@link StreamMulticast} subscription: a thread of its own runs the merge
 * ({@link DecidedStreams#next}) and calls the listener. Every method may be called from any
 * thread, including the listener's.
 */
final class SubscriptionWorker implements Subscription {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SubscriptionWorker.class);
    private final DecidedStreams streams;
    private final MergeCursor cursor;
    private final MulticastListener listener;
    private final Consumer<List<DecidedStreams.StreamPoint>> installs;
    private final Consumer<List<DecidedStreams.StreamPoint>> compactions;
    private final Consumer<SubscriptionWorker> onClose;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean();

    SubscriptionWorker(String name, DecidedStreams streams, MergeCursor cursor, MulticastListener listener,
                       Consumer<List<DecidedStreams.StreamPoint>> installs,
                       Consumer<List<DecidedStreams.StreamPoint>> compactions, Consumer<SubscriptionWorker> onClose) {
        this.streams = streams;
        this.cursor = cursor;
        this.listener = listener;
        this.installs = installs;
        this.compactions = compactions;
        this.onClose = onClose;
        this.thread = StageThreads.newThread(name, true, this::run);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            while (!closed.get()) {
                DecidedStreams.Delivery d = streams.next(cursor);
                if (d == null || closed.get()) {
                    return;
                }
                Envelope e = d.envelope();
                if (e == null) {
                    for (Runnable r : d.passed()) {
                        try {
                            r.run();
                        } catch (RuntimeException ex) {
                            LOG.error("a read waiting for the merge of {} failed; going on", cursor.groups, ex);
                        }
                    }
                    continue;
                }
                try {
                    listener.deliver(GroupSet.ofBits(e.groupBits()), e.payload().duplicate(), d.after());
                } catch (RuntimeException ex) {
                    LOG.error("multicast listener failed on a message to {}; going on with the next one",
                            GroupSet.ofBits(e.groupBits()), ex);
                }
            }
        } catch (InterruptedException e) {
            if (!closed.get()) {
                LOG.warn("multicast subscription {} interrupted; it stops delivering", cursor.groups);
            }
        }
    }

    /** Read-index over the merge ({@link DecidedStreams#whenPassed}): stream id to instance; any thread. */
    void whenPassed(java.util.Map<Integer, Long> points, Runnable passed) {
        streams.whenPassed(cursor, points, passed);
    }

    /** The ids of the streams this subscription merges. */
    int[] mergedStreams() {
        int[] ids = streams.ids();
        return java.util.stream.IntStream.range(0, ids.length).filter(i -> cursor.merged[i]).map(i -> ids[i]).toArray();
    }

    @Override
    public GroupSet groups() {
        return cursor.groups;
    }

    @Override
    public void snapshotTaken(MulticastPosition position) {
        compactions.accept(streams.snapshotTaken(cursor, position));
    }

    @Override
    public MulticastPosition resumePosition(MulticastPosition delivered) {
        return streams.resumePosition(cursor, delivered);
    }

    @Override
    public void snapshotInstalled(MulticastPosition position) {
        installs.accept(streams.jump(cursor, position));
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        streams.close(cursor);
        if (Thread.currentThread() != thread) {
            thread.interrupt();
            Joins.joinUninterruptibly(thread);
        }
        onClose.accept(this);
    }
}
