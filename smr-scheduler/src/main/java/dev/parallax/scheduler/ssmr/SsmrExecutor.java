package dev.parallax.scheduler.ssmr;

import dev.parallax.core.Command;
import dev.parallax.core.CommandResult;
import dev.parallax.core.StateMachine;
import dev.parallax.core.exec.Joins;
import dev.parallax.core.spi.Executor;
import dev.parallax.core.spi.ResultSink;
import dev.parallax.core.stage.StageThreads;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * S-SMR's executor for one replica of partition {@code p} (seed 004 (S-SMR) §IV Alg. 1, §V-A): one
 * thread runs an {@link SsmrCore} through an {@link SsmrDriver} over two bounded inboxes — the
 * commands the replica delivers ({@link #execute}, which blocks while the inbox is full) and the
 * messages other partitions send ({@link #receive}, which never blocks: a message that finds the
 * inbox full is dropped and counted; retransmission recovers it). Commands execute one at a time
 * in delivery order; a command blocks the partition until its remote values and signals arrived.
 *
 * <p>{@link #start} must be given an {@link SsmrStateMachine} (the replica snapshots it; its
 * snapshot carries the finish index that continues the {@link RemoteValuesLog}). A command whose
 * destinations do not include {@code p} is skipped without a result (the replica's global order
 * delivers it to every partition; only involved partitions reply). Every other command gets one
 * result on the {@link ResultSink}, from the executor thread, after its remote values were logged.
 *
 * <p>Threads: {@link #execute} and {@link #awaitQuiescence} from one thread (the replica's
 * ServiceManager); {@link #receive} from any threads (the transport's); {@link PartitionLinks#send}
 * is called on the executor thread ({@code parallax-ssmr-<p>}, a daemon). An {@link Error} from the
 * state machine, or any exception from the log or the links, is fatal ({@link ResultSink#onFatal}); later calls throw
 * {@link IllegalStateException}. {@link #close} interrupts and joins the thread.
 */
public final class SsmrExecutor implements Executor {
    /** Upper bound of the executor thread's sleep between retransmission checks. */
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final SsmrConfig config;
    private final RemoteValuesLog log;
    private final PartitionLinks links;
    private final PartitionMessageCodec codec;
    private final ArrayBlockingQueue<Command> commands;
    private final ArrayBlockingQueue<PartitionMessage> messages;
    private final AtomicLong droppedMessages = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition progress = lock.newCondition();
    private long handedOver;
    private long done;
    private volatile Throwable failure;
    private volatile boolean closed;
    private volatile Thread thread;
    private volatile SsmrCounters counters;
    private volatile SsmrCacheCounters cacheCounters;
    private SsmrDriver driver;
    private ResultSink sink;

    /**
     * @param config the partition, bounds and intervals ({@link SsmrConfig#maxQueued} bounds the
     *               command inbox and the messages inbox holds 4× that)
     * @param log    where finished commands' remote values go before their reply
     * @param links  the outbound links to the other partitions
     */
    public SsmrExecutor(SsmrConfig config, RemoteValuesLog log, PartitionLinks links) {
        this.config = Objects.requireNonNull(config, "config");
        this.log = Objects.requireNonNull(log, "log");
        this.links = Objects.requireNonNull(links, "links");
        this.codec = new PartitionMessageCodec(config.maxMessageBytes());
        this.commands = new ArrayBlockingQueue<>(config.maxQueued());
        this.messages = new ArrayBlockingQueue<>(4 * config.maxQueued());
        SsmrCore initial = new SsmrCore(config);
        this.counters = initial.counters();
        this.cacheCounters = initial.cacheCounters();
    }

    /**
     * @throws IllegalArgumentException if {@code stateMachine} is not an {@link SsmrStateMachine}
     * @throws IllegalStateException    if already started or closed
     */
    @Override
    public synchronized void start(StateMachine stateMachine, ResultSink results) {
        if (!(stateMachine instanceof SsmrStateMachine machine)) {
            throw new IllegalArgumentException("S-SMR needs an SsmrStateMachine, got " + stateMachine);
        }
        Objects.requireNonNull(results, "results");
        if (thread != null || closed) {
            throw new IllegalStateException("s-smr executor already started or closed");
        }
        sink = results;
        driver = new SsmrDriver(config, machine, log, links, new SsmrDriver.Outcomes() {
            @Override
            public void replied(Command command, CommandResult result) {
                sink.onResult(command, result);
                completed();
            }

            @Override
            public void skipped(Command command) {
                completed();
            }
        });
        Thread t = StageThreads.newThread("parallax-ssmr-" + config.partition(), true, this::loop);
        thread = t;
        t.start();
    }

    @Override
    public void execute(Command command) throws InterruptedException {
        Objects.requireNonNull(command, "command");
        Thread t = usable();
        commands.put(command);
        lock.lock();
        try {
            handedOver++;
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(t);
    }

    /**
     * Hands over a message from another partition; never blocks.
     *
     * @return false if it was dropped (inbox full, or executor not running); counted
     */
    public boolean receive(PartitionMessage message) {
        Objects.requireNonNull(message, "message");
        Thread t = thread;
        if (t == null || closed || failure != null || !messages.offer(message)) {
            droppedMessages.incrementAndGet();
            return false;
        }
        LockSupport.unpark(t);
        return true;
    }

    /**
     * Decodes and hands over an encoded message ({@link PartitionMessageCodec}); never throws on
     * garbage, never blocks.
     *
     * @return false if malformed (counted in {@link #malformedMessages}) or dropped
     */
    public boolean receive(ByteBuffer bytes) {
        PartitionMessageCodec.Decoded d = codec.decode(bytes);
        return d instanceof PartitionMessageCodec.Decoded.Ok ok && receive(ok.message());
    }

    /** The codec this executor decodes with (the transport may encode with it). */
    public PartitionMessageCodec codec() {
        return codec;
    }

    @Override
    public void awaitQuiescence() throws InterruptedException {
        usable();
        lock.lock();
        try {
            while (done < handedOver && failure == null && !closed) {
                progress.await();
            }
        } finally {
            lock.unlock();
        }
        usable();
    }

    /** The core's counters as of the last loop of the executor thread. */
    public SsmrCounters counters() {
        return counters;
    }

    /** The core's caching counters as of the last loop of the executor thread. */
    public SsmrCacheCounters cacheCounters() {
        return cacheCounters;
    }

    /** Inbound messages dropped because the inbox was full or the executor not running. */
    public long droppedMessages() {
        return droppedMessages.get();
    }

    /** Inbound byte messages that did not decode. */
    public long malformedMessages() {
        return codec.malformed();
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        lock.lock();
        try {
            progress.signalAll();
        } finally {
            lock.unlock();
        }
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
            Joins.joinUninterruptibly(t);
        }
    }

    private Thread usable() {
        Throwable f = failure;
        if (f != null) {
            throw new IllegalStateException("s-smr executor failed", f);
        }
        Thread t = thread;
        if (t == null || closed) {
            throw new IllegalStateException("s-smr executor not started or closed");
        }
        return t;
    }

    private void completed() {
        lock.lock();
        try {
            done++;
            progress.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        long parkNanos = Math.min(MAX_PARK_NANOS, Math.max(1, config.resendAfterNanos() / 4));
        long origin = System.nanoTime(); // the core's clock starts at 0 and must not go backwards
        try {
            while (!closed) {
                boolean worked = false;
                PartitionMessage m;
                while ((m = messages.poll()) != null) {
                    driver.receive(m);
                    worked = true;
                }
                Command c;
                while (driver.core().queued() < config.maxQueued() && (c = commands.poll()) != null) {
                    driver.deliver(c);
                    worked = true;
                }
                driver.tick(System.nanoTime() - origin);
                counters = driver.core().counters();
                cacheCounters = driver.core().cacheCounters();
                if (!worked) {
                    LockSupport.parkNanos(this, parkNanos);
                }
                if (Thread.interrupted() && closed) {
                    return;
                }
            }
        } catch (Throwable t) {
            if (closed) {
                return;
            }
            failure = t;
            try {
                sink.onFatal(driver.core().head(), t);
            } finally {
                lock.lock();
                try {
                    progress.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }
    }
}
