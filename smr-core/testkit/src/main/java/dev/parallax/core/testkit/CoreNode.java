package dev.parallax.core.testkit;

import dev.parallax.core.protocol.EffectApplier;
import dev.parallax.core.protocol.EffectBuffer;
import dev.parallax.core.protocol.ProtocolCore;
import dev.parallax.core.protocol.RecordCodec;
import dev.parallax.core.protocol.SafetyViolation;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link ProtocolCore} as a simulated node: recovers the core from the node's durable log at
 * every (re)start, feeds it messages and ticks, and applies its effects with the same
 * {@link EffectApplier} the runtime uses (persist and sync before sending). Datagrams go to the
 * simulated network's datagram groups ({@link NodeContext#sendDatagram}); the node joins the groups
 * named by {@link #joinOnStart} at every (re)start, and a datagram it receives from itself (a
 * group member's loopback copy) is ignored, as the runtime's datagram port drops its own. A
 * safety violation the core reports goes to {@link DecisionListener#safetyAlarm}, and the node
 * then applies no more effects, as the runtime's protocol stage stops.
 *
 * <p>Runs on the simulator's thread only.
 */
public final class CoreNode<M, R, V> implements SimNode<M> {

    /** Builds a core from the records that survived in its log. */
    @FunctionalInterface
    public interface CoreFactory<M, R, V> {
        ProtocolCore<M, R, V> create(int id, List<R> recovered, long now);
    }

    /** Observes every decision of every node (for safety checks), and snapshot requests. */
    @FunctionalInterface
    public interface DecisionListener<V> {
        void decided(int node, long instance, V value);

        /** Node {@code node} needs a snapshot from {@code peer} covering instances below {@code instance}. */
        default void snapshotNeeded(int node, int peer, long instance) {
        }

        /**
         * Node {@code node}'s core reported a safety violation (two different decisions for one
         * instance); the node applies nothing more. Default: fails the run with an
         * {@link AssertionError} naming it (a test that injects a conflict overrides this).
         */
        default void safetyAlarm(int node, SafetyViolation violation) {
            throw new AssertionError("node " + node + " raised a safety alarm: " + violation.describe());
        }
    }

    private final NodeContext<M> ctx;
    private final CoreFactory<M, R, V> factory;
    private final RecordCodec<R> codec;
    private final EffectBuffer<M, R, V> effects = new EffectBuffer<>();
    private final EffectApplier<M, R, V> applier;
    private ProtocolCore<M, R, V> core;
    private int[] groups = new int[0];

    public CoreNode(NodeContext<M> ctx, CoreFactory<M, R, V> factory, RecordCodec<R> codec, DecisionListener<V> listener) {
        this.ctx = ctx;
        this.factory = factory;
        this.codec = codec;
        this.applier = new EffectApplier<>(ctx.log(), codec, ctx::send, (group, m) -> ctx.sendDatagram(group, m),
                (i, v) -> listener.decided(ctx.id(), i, v), (peer, i) -> listener.snapshotNeeded(ctx.id(), peer, i),
                v -> listener.safetyAlarm(ctx.id(), v));
    }

    @Override
    public void onStart() {
        List<R> recovered = new ArrayList<>();
        ctx.log().read(ctx.log().firstIndex(), Integer.MAX_VALUE, (i, r) -> recovered.add(codec.decode(r)));
        core = factory.create(ctx.id(), recovered, ctx.now());
        for (int g : groups) {
            ctx.joinGroup(g);
        }
    }

    /** Datagram groups this node joins at every (re)start (a crash ends a membership). Call before the first start. */
    public CoreNode<M, R, V> joinOnStart(int... groups) {
        this.groups = groups.clone();
        return this;
    }

    @Override
    public void onDatagram(int from, int group, M message) {
        if (from == ctx.id()) {
            return;
        }
        core.onMessage(from, message, ctx.now(), effects);
        applier.apply(effects);
    }

    /** The member detector suspects {@code member} in {@code epoch}; see {@link ProtocolCore#onSuspectMember}. */
    public void suspectMember(int member, long epoch) {
        core.onSuspectMember(member, epoch, ctx.now(), effects);
        applier.apply(effects);
    }

    /** Every decision below {@code nextInstance} was executed; see {@link ProtocolCore#onDelivered}. */
    public void delivered(long nextInstance) {
        core.onDelivered(nextInstance, ctx.now(), effects);
        applier.apply(effects);
    }

    @Override
    public void onMessage(int from, M message) {
        core.onMessage(from, message, ctx.now(), effects);
        applier.apply(effects);
    }

    @Override
    public void onTick() {
        core.onTick(ctx.now(), effects);
        applier.apply(effects);
    }

    /** Offers a value to the core; see {@link ProtocolCore#onProposal}. */
    public boolean propose(V value) {
        boolean taken = core.onProposal(value, ctx.now(), effects);
        applier.apply(effects);
        return taken;
    }

    /** The running core, for invariants that inspect its state. */
    public ProtocolCore<M, R, V> core() {
        return core;
    }

    public NodeContext<M> context() {
        return ctx;
    }
}
