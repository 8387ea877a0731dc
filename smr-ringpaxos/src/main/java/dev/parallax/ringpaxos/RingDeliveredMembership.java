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
 * delivery-side copy of the member history ({@link RingGroup}, rule G2). That copy is what a
 * snapshot carries ({@code deliveryState}), so a replica that installs it (a new learner, a replica
 * far behind) knows the sets of the instances after it. The protocol thread keeps its own
 * ({@link RingPaxosCore#membershipHistory()}); each copy has one writer.
 *
 * <p>Threads: {@link #toDelivery(long, RingValue)} on the delivery thread, {@link #state()} on any;
 * {@link #install} before start or while delivery is quiescent; {@link #fromBytes} from any thread.
 */
final class RingDeliveredMembership implements ProtocolRuntime.ValueAdapter<RingValue> {
    private final MembershipHistory history;
    private final boolean changes;
    private final LongFunction<ByteBuffer> skipEncoder;
    /** The history as last changed, encoded (written by the delivery thread, read by any). */
    private volatile byte[] published = new byte[0];

    RingDeliveredMembership(RingConfig config, LongFunction<ByteBuffer> skipEncoder) {
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
                published = history.encode();
            }
        }
        return toDelivery(v);
    }

    /**
     * The history as of the last configuration command delivered (or installed), encoded: every
     * change decided up to the last delivered instance (empty for a ring whose members are fixed,
     * or one that has not changed them). Any thread: a merged multicast's snapshot reads it on its
     * subscription's thread.
     */
    byte[] state() {
        return published;
    }

    /** A snapshot's delivery state (empty: none); a malformed one is ignored (the core reports nothing either). */
    void install(byte[] state) {
        if (state.length > 0) {
            try {
                if (history.restore(ByteBuffer.wrap(state))) {
                    published = history.encode();
                }
            } catch (IllegalArgumentException malformed) {
                // Decisions bring the rest; the protocol thread restores from the same bytes.
            }
        }
    }
}
