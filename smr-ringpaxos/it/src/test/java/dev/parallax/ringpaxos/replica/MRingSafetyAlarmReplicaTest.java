package dev.parallax.ringpaxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.replica.SafetyAlarmException;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.InboundTap;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.core.testkit.cluster.SafetyAlarmProbe;
import dev.parallax.ringpaxos.InstanceVid;
import dev.parallax.ringpaxos.MPacket;
import dev.parallax.ringpaxos.Ring;
import dev.parallax.ringpaxos.ValueId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running three-replica M-Ring cluster (a real IP-multicast group on loopback) where one replica
 * receives, as if from its datagram group, a decision naming a NOOP for an instance it decided —
 * the forged decision datagram of a hostile network: it raises the safety alarm
 * ({@code parallax.safety.alarms}, an ERROR line naming both origins) and stops serving (it closes
 * itself with a {@link SafetyAlarmException}, healthy gauge at 0, client port closed) rather than diverge; the other two
 * go on serving every write.
 */
class MRingSafetyAlarmReplicaTest {
    private static final int N = 3;

    @Test
    void aReplicaThatHearsTwoDecisionsForOneInstanceStopsServingAndCountsTheAlarm() throws Exception {
        InboundTap<MPacket> tap = new InboundTap<>(InboundTap.Path.DATAGRAM_GROUP, N);
        String group = RingReplicaClusterTest.randomGroup();
        int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        try (LocalCluster cluster = new LocalCluster(N,
                n -> tap.around(RingReplicaClusterTest.ordering(n, Ring.Kind.M_RING, group, port)))) {
            SmrClient client = cluster.client();
            text(client.invoke(cmd("SET k0 before")).get(10, TimeUnit.SECONDS));
            int victim = 1;
            int other = 0;
            Replica r = cluster.replicas.get(victim);
            Await.until("the victim decided instance 0", Duration.ofSeconds(10), () -> SafetyAlarmProbe.decided(r) >= 1);
            assertThat(SafetyAlarmProbe.alarms(r)).isZero();

            SafetyAlarmProbe.Stop stop = SafetyAlarmProbe.inject(r, () -> tap.handler(victim).onMessage(other,
                    new MPacket(0, Ring.mRing(0, new int[]{1}), List.of(new InstanceVid(0, ValueId.NOOP)), List.of())));

            assertThat(stop.why()).hasMessageContaining("then value NOOP from member " + other + " (MPacket");
            SafetyAlarmProbe.assertStoppedServing(cluster, victim, stop, "member " + other + " (MPacket");
            SafetyAlarmProbe.assertMajorityServes(cluster, client, victim);
        }
    }
}
