package dev.parallax.core.testkit;

import dev.parallax.core.spi.Transport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The in-process test network passes the shared transport contract, and multicasts as a datagram group. */
class LocalNetworkTest extends TransportContract {
    private final LocalNetwork<String> network = new LocalNetwork<>(3);

    @Override
    protected Transport<String> member(int id) {
        return network.transport(id);
    }

    private List<Transport<String>> startAll(LocalNetwork<String> net, List<String> got) {
        List<Transport<String>> all = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            Transport<String> t = net.transport(id);
            int me = id;
            t.start((from, m) -> got.add(from + "->" + me + ":" + m));
            all.add(t);
        }
        return all;
    }

    @Test
    @DisplayName("a multicast reaches every other member once, never the sender, and not over a cut link")
    void multicastReachesEveryOtherMember() {
        LocalNetwork<String> net = new LocalNetwork<>(3);
        List<String> got = new ArrayList<>();
        List<Transport<String>> all = startAll(net, got);
        assertThat(all.get(1).sendDatagram(0, "p2")).isTrue();
        assertThat(got).containsExactly("1->0:p2", "1->2:p2");
        net.cut(1, 2);
        all.get(1).sendDatagram(0, "q");
        assertThat(got).containsExactly("1->0:p2", "1->2:p2", "1->0:q");
        all.get(1).close();
        assertThat(all.get(1).sendDatagram(0, "late")).isFalse();
    }

    @Test
    @DisplayName("seeded datagram loss loses some copies, replays identically for one seed, and is validated")
    void seededLoss() {
        List<String> first = new ArrayList<>();
        List<String> second = new ArrayList<>();
        for (List<String> got : List.of(first, second)) {
            LocalNetwork<String> net = new LocalNetwork<>(3);
            net.loseDatagrams(0.5, 42);
            List<Transport<String>> all = startAll(net, got);
            for (int i = 0; i < 200; i++) {
                all.get(0).sendDatagram(0, "m" + i);
            }
        }
        // 400 copies at a loss of one half: far from none and far from all (binomial sd = 10).
        assertThat(first.size()).isBetween(120, 280);
        assertThat(second).isEqualTo(first);
        assertThatThrownBy(() -> new LocalNetwork<String>(2).loseDatagrams(1.5, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
