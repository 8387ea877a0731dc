package dev.parallax.core.testkit;

import dev.parallax.core.spi.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link Transport} passes: messages between two live members arrive, in the
 * order each sender sent them (no reconnection in these tests), with the right sender id; bad
 * member ids are rejected; the lifecycle rules hold. Subclasses create the members of a 3-member
 * cluster carrying {@code String} messages.
 */
public abstract class TransportContract {
    private final List<Transport<String>> open = new ArrayList<>();

    /** Member {@code id} of a fresh 3-member cluster (the same cluster for every call in one test). */
    protected abstract Transport<String> member(int id);

    private Transport<String> create(int id) {
        Transport<String> t = member(id);
        open.add(t);
        return t;
    }

    @AfterEach
    final void closeAll() {
        open.forEach(Transport::close);
    }

    /**
     * Sends hellos until one arrives (a transport may lose messages while it connects, as the
     * contract allows), then the messages, and waits until the receiver has them all.
     */
    private static void sendAll(Transport<String> from, int to, List<String> messages, CountDownLatch linked,
                                CountDownLatch received) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!linked.await(5, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
            from.send(to, "hello");
        }
        for (String m : messages) {
            while (!from.send(to, m)) {
                Thread.onSpinWait();
            }
        }
        assertThat(received.await(20, TimeUnit.SECONDS)).as("all messages arrived").isTrue();
    }

    @Test
    void messagesArriveInOrderWithTheirSender() throws Exception {
        Transport<String> a = create(0);
        Transport<String> b = create(1);
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        List<Integer> from = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch all = new CountDownLatch(1000);
        CountDownLatch hello = new CountDownLatch(1);
        a.start((f, m) -> { });
        b.start((f, m) -> {
            if (m.equals("hello")) {
                hello.countDown();
            } else if (m.startsWith("m")) {
                got.add(m);
                from.add(f);
                all.countDown();
            }
        });
        assertThat(a.localId()).isZero();
        CountDownLatch finished = new CountDownLatch(1);
        List<String> probe = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            probe.add("m" + i);
        }
        Thread sender = new Thread(() -> {
            try {
                sendAll(a, 1, probe, hello, all);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                finished.countDown();
            }
        });
        sender.start();
        assertThat(finished.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(got).containsExactlyElementsOf(probe);
        assertThat(from).containsOnly(0);
    }

    @Test
    void sendingToANonMemberIsRejected() {
        Transport<String> a = create(0);
        a.start((f, m) -> { });
        assertThatThrownBy(() -> a.send(3, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.send(-1, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void lifecycleRules() {
        Transport<String> a = create(0);
        a.start((f, m) -> { });
        assertThatThrownBy(() -> a.start((f, m) -> { })).isInstanceOf(IllegalStateException.class);
        a.close();
        a.close();
        assertThat(a.send(1, "after close")).isFalse();
    }
}
