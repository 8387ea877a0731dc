package dev.parallax.core.runtime;

import dev.parallax.core.runtime.Channels.Route;
import dev.parallax.core.spi.Transport;
import dev.parallax.core.testkit.LocalNetwork;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Channels#union}: one transport of a union type (here {@link Serializable}: strings and numbers) over typed channels, as S-Paxos runs dissemination and
 * ordering on one runtime (seed 002 (S-Paxos) §IV), including a channel joined through a wrapper
 * type ({@link Route#wrapping}), as S-Paxos' ordering channel is.
 */
class ChannelsTest {

    private static Transport<Serializable> member(int id, LocalNetwork<String> texts, LocalNetwork<Integer> numbers) {
        return Channels.union(Serializable.class, Route.of(String.class, texts.transport(id)), Route.of(Integer.class, numbers.transport(id)));
    }

    @Test
    @DisplayName("messages travel on the channel of their type and reach one handler, stamped per sender")
    void routesByTypeAndMergesReceipt() {
        LocalNetwork<String> texts = new LocalNetwork<>(2);
        LocalNetwork<Integer> numbers = new LocalNetwork<>(2);
        Transport<Serializable> a = member(0, texts, numbers);
        Transport<Serializable> b = member(1, texts, numbers);
        List<String> got = new ArrayList<>();
        List<Integer> stamped = new ArrayList<>();
        a.start((from, m) -> { });
        b.start((from, m) -> got.add(from + ":" + m), stamped::add);

        assertThat(a.localId()).isZero();
        assertThat(b.localId()).isEqualTo(1);
        assertThat(a.send(1, "x")).isTrue();
        assertThat(a.send(1, 7)).isTrue();
        assertThat(got).containsExactly("0:x", "0:7");
        assertThat(stamped).containsExactly(0, 0);

        // Cutting only the number channel loses numbers, not texts: the routes are separate channels.
        numbers.cut(0, 1);
        a.send(1, 8);
        a.send(1, "y");
        assertThat(got).containsExactly("0:x", "0:7", "0:y");
        a.close();
        b.close();
    }

    /** A number as the union carries it: the wrapper of a channel of bare {@link Integer}s. */
    record Boxed(int value) implements Serializable {
    }

    @Test
    @DisplayName("a wrapping route hands its channel the bare message and its handler the wrapped one, stamped as its own")
    void wrappingRouteUnwrapsOnSendAndWrapsOnReceipt() {
        LocalNetwork<String> texts = new LocalNetwork<>(3);
        LocalNetwork<Integer> numbers = new LocalNetwork<>(3);
        Transport<Serializable> a = Channels.union(Serializable.class, Route.of(String.class, texts.transport(0)),
                Route.wrapping(Boxed.class, numbers.transport(0), Boxed::value, Boxed::new));
        Transport<Serializable> c = Channels.union(Serializable.class, Route.of(String.class, texts.transport(2)),
                Route.wrapping(Boxed.class, numbers.transport(2), Boxed::value, Boxed::new));
        // Member 1 is on the number channel alone, unwrapped: it sees what the channel carries.
        Transport<Integer> bare = numbers.transport(1);
        List<Object> atBare = new ArrayList<>();
        List<Object> atC = new ArrayList<>();
        List<Integer> stamped = new ArrayList<>();
        a.start((from, m) -> { });
        bare.start((from, m) -> atBare.add(m));
        c.start((from, m) -> atC.add(from + ":" + m), stamped::add);

        assertThat(a.localId()).isZero();
        assertThat(a.send(1, new Boxed(7))).isTrue();
        assertThat(atBare).containsExactly(7);
        assertThat(a.send(2, new Boxed(8))).isTrue();
        assertThat(bare.send(2, 9)).isTrue();
        assertThat(a.send(2, "x")).isTrue();
        assertThat(atC).containsExactly("0:Boxed[value=8]", "1:Boxed[value=9]", "0:x");
        assertThat(stamped).containsExactly(0, 1, 0);
        assertThat(a.sendDatagram(0, new Boxed(5))).isTrue();
        assertThat(atBare).containsExactly(7, 5);
        assertThat(atC).endsWith("0:Boxed[value=5]");

        // Closing the union closes the wrapped channel: member 0 can start on it again.
        a.close();
        assertThat(a.send(1, new Boxed(1))).isFalse();
        Transport<Integer> again = numbers.transport(0);
        again.start((from, m) -> { });
        again.close();
        bare.close();
        c.close();
    }

    @Test
    @DisplayName("a message of no route's type is refused with a clear error")
    void unknownTypeIsRefused() {
        Transport<Serializable> a = member(0, new LocalNetwork<>(2), new LocalNetwork<>(2));
        a.start((from, m) -> { });
        assertThatThrownBy(() -> a.send(1, 3L)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Long");
        assertThatThrownBy(() -> a.send(1, null)).isInstanceOf(IllegalArgumentException.class);
        a.close();
    }

    @Test
    @DisplayName("routes must be one member's and of disjoint types; a union needs a route")
    void constructionIsValidated() {
        LocalNetwork<String> texts = new LocalNetwork<>(2);
        LocalNetwork<Integer> numbers = new LocalNetwork<>(2);
        assertThatThrownBy(() -> Channels.union(Serializable.class, Route.of(String.class, texts.transport(0)),
                Route.of(Integer.class, numbers.transport(1)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different members");
        LocalNetwork<Object> objects = new LocalNetwork<>(2);
        LocalNetwork<Number> nums = new LocalNetwork<>(2);
        assertThatThrownBy(() -> Channels.union(Serializable.class, Route.of(Number.class, nums.transport(0)),
                Route.of(Integer.class, numbers.transport(0)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overlap");
        assertThatThrownBy(() -> Channels.union(Object.class, Route.of(String.class, texts.transport(0)),
                Route.of(Object.class, objects.transport(0)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overlap");
        assertThatThrownBy(() -> Channels.union(Serializable.class)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("start once; close closes every route")
    void lifecycle() {
        LocalNetwork<String> texts = new LocalNetwork<>(2);
        LocalNetwork<Integer> numbers = new LocalNetwork<>(2);
        Transport<Serializable> a = member(0, texts, numbers);
        Transport<Serializable> b = member(1, texts, numbers);
        List<Object> got = new ArrayList<>();
        b.start((from, m) -> got.add(m));
        assertThatThrownBy(() -> b.start((from, m) -> { })).isInstanceOf(IllegalStateException.class);
        b.close();
        b.close();
        a.start((from, m) -> { });
        a.send(1, "lost");
        a.send(1, 1);
        assertThat(got).isEmpty();
        // Both of b's routes are free again: a new member 1 can start on them.
        Transport<Serializable> b2 = member(1, texts, numbers);
        b2.start((from, m) -> got.add(m));
        a.send(1, "x");
        a.send(1, 2);
        assertThat(got).containsExactly("x", 2);
        a.close();
        b2.close();
    }

    @Test
    @DisplayName("multicasts travel on the route of their type to every other member, not the sender")
    void multicastsRouteByType() {
        LocalNetwork<String> texts = new LocalNetwork<>(3);
        LocalNetwork<Integer> numbers = new LocalNetwork<>(3);
        List<String> got = new ArrayList<>();
        List<Transport<Serializable>> members = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            Transport<Serializable> t = member(id, texts, numbers);
            int me = id;
            t.start((from, m) -> {
                synchronized (got) {
                    got.add(from + "->" + me + ":" + m);
                }
            });
            members.add(t);
        }
        numbers.cut(0, 2);
        assertThat(members.get(0).sendDatagram(0, "x")).isTrue();
        assertThat(members.get(0).sendDatagram(0, 5)).isTrue();
        assertThat(got).containsExactly("0->1:x", "0->2:x", "0->1:5");
        assertThatThrownBy(() -> members.get(0).sendDatagram(0, 3L)).isInstanceOf(IllegalArgumentException.class);
        members.forEach(Transport::close);
        assertThat(members.get(1).sendDatagram(0, "late")).isFalse();
    }

    @Test
    @DisplayName("a route whose transport has no datagram groups refuses multicasts with UnsupportedOperationException")
    void multicastWithoutGroupsIsUnsupported() {
        Transport<String> unicastOnly = new Transport<>() {
            @Override
            public int localId() {
                return 0;
            }

            @Override
            public void start(dev.parallax.core.spi.MessageHandler<String> handler) {
            }

            @Override
            public boolean send(int to, String message) {
                return true;
            }

            @Override
            public void close() {
            }
        };
        Transport<Serializable> union = Channels.union(Serializable.class, Route.of(String.class, unicastOnly));
        assertThat(union.send(1, "x")).isTrue();
        assertThatThrownBy(() -> union.sendDatagram(0, "x")).isInstanceOf(UnsupportedOperationException.class);
    }
}
