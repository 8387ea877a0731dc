/**
 * The testkit, shipped as smr-core's test-jar: a deterministic simulator (virtual clock, in-memory
 * network with seeded fault injection, an unreliable datagram channel, crash and restart
 * with durable state kept, process pauses and crashes of every replica at once), seed runners that print a failing seed for replay, a hand-driven
 * {@code ScriptedCluster} over any protocol core with golden-trace files ({@code GoldenFiles},
 * regenerated with {@code -Dgolden.update=true}), and the contract suites shared by implementations of an
 * SPI ({@code DurableLogContract}, {@code TransportContract}, {@code AtomicBroadcastContract}; the
 * executor contract {@code ExecutorContract} in {@code testkit.executor}).
 * Protocol-independent replica-simulation parts (simulated clients, service, monitors) live in
 * {@code testkit.smr}; in-process cluster helpers over real replicas in {@code testkit.cluster}; atomic
 * multicast learners and checkers in {@code testkit.multicast}.
 */
package dev.parallax.core.testkit;
