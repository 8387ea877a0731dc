package dev.parallax.core.stage;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** A test stage that drains one input queue and applies an action to each element. */
final class ActionStage<E> implements Stage {

    private final String name;
    private final BoundedQueue<E> input;
    private final Consumer<E> action;
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch closed = new CountDownLatch(1);
    final AtomicInteger doWorkCalls = new AtomicInteger();
    volatile String onStartThread;
    volatile String onCloseThread;

    ActionStage(String name, BoundedQueue<E> input, Consumer<E> action) {
        this.name = name;
        this.input = input;
        this.action = action;
    }

    @Override
    public int doWork() {
        doWorkCalls.incrementAndGet();
        return input.drain(action, 64);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void onStart() {
        onStartThread = Thread.currentThread().getName();
        started.countDown();
    }

    @Override
    public void onClose() {
        onCloseThread = Thread.currentThread().getName();
        closed.countDown();
    }

    @Override
    public List<BoundedQueue<E>> inputQueues() {
        return List.of(input);
    }
}
