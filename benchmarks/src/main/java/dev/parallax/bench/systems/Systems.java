package dev.parallax.bench.systems;

import dev.parallax.bench.systems.jgroupsraft.JGroupsRaftSystem;
import dev.parallax.bench.systems.limits.EchoSystem;
import dev.parallax.bench.systems.limits.ForwarderSystem;
import dev.parallax.bench.systems.ratis.RatisSystem;
import dev.parallax.bench.systems.zookeeper.ZooKeeperSystem;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The systems {@code ./parallax bench --system NAME} knows, in the order {@code --compare} runs them. Stateless. */
public final class Systems {
    private static final List<Entry> ALL = List.of(
            new Entry("parallax-none", () -> new ParallaxSystem("none")),
            new Entry("parallax-every-batch", () -> new ParallaxSystem("every-batch")),
            new Entry("parallax-memory", () -> new ParallaxSystem("memory")),
            new Entry("parallax-lease-none", ParallaxSystem::multiPaxosLease),
            new Entry("parallax-spaxos-none", () -> new ParallaxSystem("none", "s-paxos")),
            new Entry("parallax-spaxos-every-batch", () -> new ParallaxSystem("every-batch", "s-paxos")),
            new Entry("parallax-uring-none", () -> new ParallaxSystem("none", "u-ring")),
            new Entry("parallax-mring-none", () -> new ParallaxSystem("none", "m-ring")),
            new Entry("parallax-mring-spec", ParallaxSystem::mRingSpeculation),
            new Entry("parallax-uring-every-batch", () -> new ParallaxSystem("every-batch", "u-ring")),
            new Entry("parallax-mring-every-batch", () -> new ParallaxSystem("every-batch", "m-ring")),
            new Entry("parallax-n5-none", () -> new ParallaxSystem("none", null, 5)),
            new Entry("parallax-spaxos-n5-none", () -> new ParallaxSystem("none", "s-paxos", 5)),
            new Entry("parallax-uring-n5-none", () -> new ParallaxSystem("none", "u-ring", 5)),
            new Entry("parallax-mring-n5-none", () -> new ParallaxSystem("none", "m-ring", 5)),
            new Entry("parallax-multiring-1", () -> ParallaxSystem.multiRing(1)),
            new Entry("parallax-multiring-2", () -> ParallaxSystem.multiRing(2)),
            new Entry("parallax-multiring-3", () -> ParallaxSystem.multiRing(3)),
            new Entry("parallax-psmr-1", () -> ParallaxSystem.psmr(1)),
            new Entry("parallax-psmr-2", () -> ParallaxSystem.psmr(2)),
            new Entry("parallax-psmr-3", () -> ParallaxSystem.psmr(3)),
            new Entry("parallax-multicast-2", () -> ParallaxSystem.multicast(2)),
            new Entry("parallax-psmr-multicast-2", () -> ParallaxSystem.psmrMulticast(2)),
            new Entry("parallax-ssmr-1", () -> ParallaxSystem.ssmr(1)),
            new Entry("parallax-ssmr-2", () -> ParallaxSystem.ssmr(2)),
            new Entry("parallax-ssmr-2-mget", () -> ParallaxSystem.ssmrMget(2, false)),
            new Entry("parallax-ssmr-2-mget-cache", () -> ParallaxSystem.ssmrMget(2, true)),
            new Entry("parallax-multiring-2-d1", () -> ParallaxSystem.multiRingVariant("d1", Map.of("ring.delta.ms", "1"))),
            new Entry("parallax-multiring-2-d20", () -> ParallaxSystem.multiRingVariant("d20", Map.of("ring.delta.ms", "20"))),
            new Entry("parallax-multiring-2-m8", () -> ParallaxSystem.multiRingVariant("m8", Map.of("multiring.m", "8"))),
            new Entry("parallax-multiring-2-demand",
                    () -> ParallaxSystem.multiRingVariant("demand", Map.of("ring.skip.demand", "on"))),
            new Entry("parallax-multiring-2-lambda200",
                    () -> ParallaxSystem.multiRingVariant("lambda200", Map.of("ring.lambda", "200"))),
            new Entry("ratis", () -> new RatisSystem(true)),
            new Entry("ratis-nosync", () -> new RatisSystem(false)),
            new Entry("zookeeper", () -> new ZooKeeperSystem(true)),
            new Entry("zookeeper-nosync", () -> new ZooKeeperSystem(false)),
            new Entry("volery-1", () -> new VolerySystem(1)),
            new Entry("volery-2", () -> new VolerySystem(2)),
            new Entry("volery-4", () -> new VolerySystem(4)),
            new Entry("volery-2-reads", () -> VolerySystem.mix(2, false)),
            new Entry("volery-2-reads-cache", () -> VolerySystem.mix(2, true)),
            new Entry("jgroups-raft", () -> new JGroupsRaftSystem(false)),
            new Entry("jgroups-raft-fsync", () -> new JGroupsRaftSystem(true)),
            new Entry("echo", EchoSystem::new),
            new Entry("forwarder", ForwarderSystem::new));

    private Systems() {
    }

    /** A named system factory. */
    public record Entry(String name, Supplier<BenchSystem> factory) {
    }

    /** Every known system. */
    public static List<Entry> all() {
        return ALL;
    }

    /**
     * A fresh, unstarted instance of system {@code name}.
     *
     * @throws IllegalArgumentException naming the known systems if {@code name} is not one
     */
    public static BenchSystem create(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown system " + name + "; known: "
                        + ALL.stream().map(Entry::name).toList()))
                .factory().get();
    }
}
