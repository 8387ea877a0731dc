package dev.parallax.core.net;

import dev.parallax.core.testkit.LocalNetwork;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Link faults per direction: an inbound cut loses what a peer sends (and the
 * arrival is not stamped, so the failure detector hears nothing), an outbound cut loses what is
 * sent to it, {@code block} cuts both, and {@code heal}/{@code unblock} restore them. Membership
 * changes pass through to the wrapped transport.
 */
class FaultInjectingTransportTest {
    private final LocalNetwork<String> network = new LocalNetwork<>(3);
    private final LinkFaults faults = new LinkFaults();
    private final FaultInjectingTransport<String> zero = new FaultInjectingTransport<>(network.transport(0), faults);
    private final List<String> heardByZero = new CopyOnWriteArrayList<>();
    private final List<Integer> stampedByZero = new CopyOnWriteArrayList<>();
    private final List<String> heardByOne = new CopyOnWriteArrayList<>();
    private final dev.parallax.core.spi.Transport<String> one = network.transport(1);
    private final dev.parallax.core.spi.Transport<String> two = network.transport(2);

    FaultInjectingTransportTest() {
        zero.start((from, m) -> heardByZero.add(from + ":" + m), stampedByZero::add);
        one.start((from, m) -> heardByOne.add(from + ":" + m));
        two.start((from, m) -> { });
    }

    @Test
    void anInboundCutLosesWhatThePeerSendsButNotWhatGoesToIt() {
        faults.blockInbound(1);
        one.send(0, "lost");
        two.send(0, "kept");
        assertThat(zero.send(1, "out")).isTrue();
        assertThat(heardByZero).containsExactly("2:kept");
        assertThat(stampedByZero).as("a cut arrival is not stamped").containsExactly(2);
        assertThat(heardByOne).containsExactly("0:out");
        assertThat(faults.isInboundBlocked(1)).isTrue();
        assertThat(faults.isOutboundBlocked(1)).isFalse();
        assertThat(faults.isBlocked(1)).isFalse();
    }

    @Test
    void anOutboundCutLosesWhatIsSentToThePeerButNotWhatItSends() {
        faults.blockOutbound(1);
        assertThat(zero.send(1, "lost")).as("lost on the wire, as far as the sender can tell").isTrue();
        one.send(0, "in");
        assertThat(heardByOne).isEmpty();
        assertThat(heardByZero).containsExactly("1:in");
    }

    @Test
    void blockCutsBothDirectionsAndHealOrUnblockRestoreThem() {
        faults.block(1);
        assertThat(faults.isBlocked(1)).isTrue();
        zero.send(1, "a");
        one.send(0, "b");
        assertThat(heardByZero).isEmpty();
        assertThat(heardByOne).isEmpty();
        faults.unblock(1);
        zero.send(1, "c");
        one.send(0, "d");
        assertThat(heardByOne).containsExactly("0:c");
        assertThat(heardByZero).containsExactly("1:d");
        faults.blockInbound(1);
        faults.blockOutbound(2);
        faults.heal();
        assertThat(faults.isInboundBlocked(1) || faults.isOutboundBlocked(2)).isFalse();
    }

    @Test
    void membershipChangesReachTheWrappedTransport() {
        List<String> calls = new CopyOnWriteArrayList<>();
        dev.parallax.core.spi.Transport<String> inner = new dev.parallax.core.spi.Transport<>() {
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
            public void addMember(int id, String host, int port) {
                calls.add("add " + id + " " + host + ":" + port);
            }

            @Override
            public void removeMember(int id) {
                calls.add("remove " + id);
            }

            @Override
            public void close() {
            }
        };
        FaultInjectingTransport<String> wrapped = new FaultInjectingTransport<>(inner, faults);
        wrapped.addMember(3, "127.0.0.1", 7013);
        wrapped.removeMember(3);
        assertThat(calls).containsExactly("add 3 127.0.0.1:7013", "remove 3");
    }
}
