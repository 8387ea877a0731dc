/**
 * A replicated group's membership as decided state: {@link dev.parallax.core.membership.Membership}
 * (voters, learners, retired ids), {@link dev.parallax.core.membership.MembershipChange} (the
 * configuration command an ordering decides like any value) and
 * {@link dev.parallax.core.membership.MembershipHistory} (which membership governs each instance,
 * with the α rule of Lamport, Malkhi and Zhou, "Reconfiguring a State Machine", §3). Shared by every
 * ordering that changes its members at run time, so one change means one thing across protocols.
 *
 * {@link dev.parallax.core.membership.ChangeGate} says whether a leader may propose a change now, and
 * {@link dev.parallax.core.membership.RuntimeMembershipAdmin} is the operator's side of any of them
 * ({@code MembershipAdmin} over a {@code ProtocolRuntime}).
 *
 * <p>Pure values and single-writer bookkeeping (no threads, clocks or I/O), except
 * {@code RuntimeMembershipAdmin}, whose thread contract is on its class.
 */
package dev.parallax.core.membership;
