package dev.parallax.paxos;

import dev.parallax.core.runtime.ProtocolRuntime;
import dev.parallax.core.membership.Membership;
import dev.parallax.core.membership.MembershipHistory;

import java.nio.ByteBuffer;

/**
 * Multi-Paxos' values on the delivery side: commands are delivered, the no-op and configuration
 * commands are not, and every decided instance is applied, in order, to a delivery-side copy of
 * the membership history. That copy is what a snapshot carries ({@code deliveryState}): exactly
 * the memberships of the instances after the snapshot's position, so a replica that installs it
 * (a new learner, a replica far behind) counts quorums as the others do. The protocol thread keeps
 * its own history ({@link MultiPaxosCore#membershipHistory()}); each copy has one writer.
 *
 * <p>Threads: {@link #toDelivery(long, Value)} and {@link #state()} on the delivery thread;
 * {@link #install} before start or while delivery is quiescent (a snapshot being installed);
 * {@link #fromBytes} from any thread.
 */
final class DeliveredMembership implements ProtocolRuntime.ValueAdapter<Value> {
    private final MembershipHistory history;

    DeliveredMembership(PaxosConfig config) {
        this.history = new MembershipHistory(Membership.initial(config.members()), config.window());
    }

    @Override
    public Value fromBytes(ByteBuffer bytes) {
        return Value.of(bytes);
    }

    @Override
    public ByteBuffer toDelivery(Value v) {
        return v.isNoop() || v.isMembership() ? null : v.bytes();
    }

    @Override
    public ByteBuffer toDelivery(long instance, Value v) {
        history.apply(instance, v.isMembership(), v.isMembership() ? v.bytes() : null);
        return toDelivery(v);
    }

    /** The history as of the last delivered instance, encoded: a snapshot's delivery state. */
    byte[] state() {
        return history.encode();
    }

    /** A snapshot's delivery state (empty: none); a malformed one is ignored. */
    void install(byte[] state) {
        if (state.length > 0) {
            try {
                history.restore(ByteBuffer.wrap(state));
            } catch (IllegalArgumentException malformed) {
                // The protocol thread reports it (MultiPaxosCore.skipTo); decisions bring the rest.
            }
        }
    }
}
