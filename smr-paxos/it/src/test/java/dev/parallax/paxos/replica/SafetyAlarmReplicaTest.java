package dev.parallax.paxos.replica;

import dev.parallax.core.client.SmrClient;
import dev.parallax.core.replica.Replica;
import dev.parallax.core.replica.SafetyAlarmException;
import dev.parallax.core.testkit.Await;
import dev.parallax.core.testkit.cluster.InboundTap;
import dev.parallax.core.testkit.cluster.LocalCluster;
import dev.parallax.core.testkit.cluster.SafetyAlarmProbe;
import dev.parallax.paxos.PaxosMessage;
import dev.parallax.paxos.Value;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.parallax.core.testkit.cluster.TextKv.cmd;
import static dev.parallax.core.testkit.cluster.TextKv.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running three-replica Multi-Paxos cluster where one replica hears, from a peer's channel, a
 * catch-up reply naming another value for an instance it decided: its learner reports the
 * conflict, and the replica raises the safety alarm ({@code parallax.safety.alarms}, an ERROR line
 * naming both origins) and stops serving — it closes itself ({@link Replica#failStopped()} with a
 * {@link SafetyAlarmException}, healthy gauge at 0, client port closed) rather than diverge; the other two go on
 * serving every write.
 */
class SafetyAlarmReplicaTest {
    private static final int N = 3;

    @Test
    void aReplicaThatHearsTwoDecisionsForOneInstanceStopsServingAndCountsTheAlarm() throws Exception {
        InboundTap<PaxosMessage> tap = new InboundTap<>(InboundTap.Path.PEER_CHANNELS, N);
        try (LocalCluster cluster = new LocalCluster(N, n -> tap.around(PaxosClusters.multiPaxos(n)))) {
            SmrClient client = cluster.client();
            text(client.invoke(cmd("SET k0 before")).get(10, TimeUnit.SECONDS));
            int leader = PaxosClusters.leader(cluster);
            int victim = (leader + 1) % N;
            int other = (leader + 2) % N;
            Replica r = cluster.replicas.get(victim);
            Await.until("the victim decided instance 0", Duration.ofSeconds(10), () -> SafetyAlarmProbe.decided(r) >= 1);
            assertThat(SafetyAlarmProbe.alarms(r)).isZero();

            SafetyAlarmProbe.Stop stop = SafetyAlarmProbe.inject(r, () -> tap.handler(victim).onMessage(other,
                    new PaxosMessage.CatchUpReply(0, 0, List.of(new PaxosMessage.Decided(0,
                            Value.of("SET forged yes".getBytes(StandardCharsets.UTF_8)))))));

            SafetyAlarmProbe.assertStoppedServing(cluster, victim, stop, "member " + other + " (CatchUpReply");
            SafetyAlarmProbe.assertMajorityServes(cluster, client, victim);
        }
    }
}
