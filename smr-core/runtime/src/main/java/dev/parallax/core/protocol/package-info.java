/**
 * The shape every protocol core shares: a deterministic step function that takes inputs (a
 * message, a tick carrying the time, a proposal) and emits {@link dev.parallax.core.protocol.Effects}
 * (messages to send, records to persist, values decided, the next wake-up time). Cores never read a
 * clock, start a thread, touch a socket or draw random numbers; the runtime's Protocol stage and
 * the testkit simulator are their only drivers.
 */
package dev.parallax.core.protocol;
