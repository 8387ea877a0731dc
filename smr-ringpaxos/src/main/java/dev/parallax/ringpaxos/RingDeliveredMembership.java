package dev.parallax.ringpaxos;

import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;
import dev.parallax.core.runtime.ProtocolRuntime;

import java.nio.ByteBuffer;
import java.util.function.LongFunction;

/**
 * Ring Paxos' values on the delivery side: a chosen batch delivers its bytes, a no-op and a
 * configuration command nothing, a skip what the skip encoder makes of it
 * ({@link RingPaxosBroadcast#delivery}); and, where the ring's members may change
 * ({@link RingConfig#membershipChanges()}), every decided instance is applied in order to a
 * delivery-side copy of the member history ({@link RingGroup}, rule G2). That copy, as the broadcast
 * publishes it after each change, is what a snapshot carries ({@code deliveryState}), so a replica that installs it (a new learner, a replica
 * far behind) knows the sets of the instances after it. The protocol thread keeps its own
 * ({@link RingPaxosCore#membershipHistory()}); each copy has one writer.
 *
 * <p>Threads: {@link #toDelivery(long, RingValue)} on the delivery thread, which also hands every
 * changed history to the publisher the broadcast gave;
 * {@link #install} before start or while delivery is quiescent; {@link #fromBytes} from any thread.
 */
final class RingDeliveredMembership implements ProtocolRuntime.ValueAdapter<RingValue> {
    private final MembershipHistory history;
    private final boolean changes;
    private final LongFunction<ByteBuffer> skipEncoder;
    /** Where the history goes, encoded, each time it changes (the broadcast publishes it to any thread). */
    private final java.util.function.Consumer<byte[]> publish;

    /** @param publish takes the history, encoded, each time it changes (on the delivery thread, or at an install) */
    RingDeliveredMembership(RingConfig config, LongFunction<ByteBuffer> skipEncoder, java.util.function.Consumer<byte[]> publish) {
        this.publish = publish;
        this.history = new MembershipHistory(Membership.initial(config.members()), config.window());
        this.changes = config.membershipChanges();
        this.skipEncoder = skipEncoder;
    }

    @Override
    public RingValue fromBytes(ByteBuffer bytes) {
        return new RingValue.ClientBatch(bytes.asReadOnlyBuffer());
    }

    @Override
    public ByteBuffer toDelivery(RingValue v) {
        return RingPaxosBroadcast.delivery(v, skipEncoder);
    }

    @Override
    public ByteBuffer toDelivery(long instance, RingValue v) {
        if (changes && v instanceof RingValue.Chosen c) {
            history.apply(instance, c.vid().isConfig(), c.vid().isConfig() ? c.bytes() : null);
            if (c.vid().isConfig()) {
                publish.accept(history.encode());
            }
        }
        return toDelivery(v);
    }

    /** A snapshot's delivery state (empty: none); a malformed one is ignored (the core reports nothing either). */
    void install(byte[] state) {
        if (state.length > 0) {
            try {
                if (history.restore(ByteBuffer.wrap(state))) {
                    publish.accept(history.encode());
                }
            } catch (IllegalArgumentException malformed) {
                // Decisions bring the rest; the protocol thread restores from the same bytes.
            }
        }
    }
}
