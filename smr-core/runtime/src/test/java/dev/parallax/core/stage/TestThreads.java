package dev.parallax.core.stage;

import java.util.List;
import java.util.stream.Collectors;

/** Thread inspection for tests: waits on a thread's state, never on elapsed time. */
final class TestThreads {

    private TestThreads() {
    }

    /** Returns once {@code thread} is parked or waiting; the test timeout bounds the wait. */
    static void awaitParked(Thread thread) {
        while (true) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                return;
            }
            if (state == Thread.State.TERMINATED) {
                throw new AssertionError(thread.getName() + " terminated instead of parking");
            }
            Thread.onSpinWait();
        }
    }

    /** The live threads whose name starts with {@code prefix}. */
    static List<Thread> liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
                .collect(Collectors.toList());
    }

    /** The live thread named {@code name}. */
    static Thread liveThread(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no live thread named " + name));
    }
}
