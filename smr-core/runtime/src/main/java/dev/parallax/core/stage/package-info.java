/**
 * The stage runtime: the replica is a pipeline of stages connected by bounded queues, after the
 * SEDA/actor design of JPaxos (Santos and Schiper, "Achieving high-throughput state machine
 * replication in multi-core systems", ICDCS 2013, §V).
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link dev.parallax.core.stage.Stage}: private state and a non-blocking {@code doWork()}
 *       that drains its inputs in batches and says how much it did.
 *   <li>{@link dev.parallax.core.stage.StageRunner}: one named thread per stage, with a
 *       {@link dev.parallax.core.stage.WaitStrategy} for idle time (busy-spin, yield-park, park;
 *       see {@link dev.parallax.core.stage.WaitStrategies}). The logic of a stage is kept apart from
 *       the thread that runs it, as in Aeron's Agent/AgentRunner/IdleStrategy.
 *   <li>{@link dev.parallax.core.stage.CompositeStageRunner}: one named thread for several stages,
 *       attached and detached at run time by whichever component owns each (Aeron's composite
 *       agent on one agent runner). Each loop calls every member's {@code doWork} once; the thread
 *       waits only when all were idle. Hooks, failure isolation and meters are per member, with
 *       the rules of {@code StageRunner}.
 *   <li>{@link dev.parallax.core.stage.StageThreads}: the one entry point that starts stages,
 *       following a {@link dev.parallax.core.stage.ThreadPlacement}: {@code staged} gives each
 *       pipeline stage a {@code StageRunner} (the JPaxos layout, for many cores), {@code compact}
 *       puts the pipeline on one shared {@code CompositeStageRunner} thread (for small machines,
 *       where the ~10 hand-offs a command crosses cost more than the parallelism gives), and
 *       {@code auto} picks by core count. Stages that must keep time (the failure detector) get a
 *       dedicated thread in both. Every running stage is a
 *       {@link dev.parallax.core.stage.StageHandle}, whatever its thread.
 *   <li>{@link dev.parallax.core.stage.StageStepper}: the same stages driven round-robin on the
 *       caller's thread, deterministically, for tests and the simulator.
 *   <li>{@link dev.parallax.core.stage.BoundedQueue}: single-consumer queues that never drop
 *       (JCTools MPSC/SPSC array queues, a Disruptor ring), made by
 *       {@link dev.parallax.core.stage.Queues}. A full queue stops its producer: that is the
 *       pipeline's back-pressure (JPaxos §V-E).
 *   <li>{@link dev.parallax.core.stage.StageMetrics}: queue depth, busy time and ratio, items and
 *       exceptions per stage, in Micrometer, read from single-writer
 *       {@link dev.parallax.core.stage.StageCounters} without locks or allocation on the hot path.
 * </ul>
 *
 * <h2>Waking a parked stage without lost wakeups</h2>
 * A runner whose stage is idle may park; a producer that adds to one of the stage's declared
 * input queues must then unpark it, but should pay nearly nothing when the runner is busy. The
 * runner has a volatile flag {@code parked}, and the two sides follow a Dekker-style protocol:
 * <pre>
 *   producer (BoundedQueue.offer/put)        consumer (StageRunner, idle)
 *   1. publish the element                   1. parked = true
 *   2. full fence                            2. full fence
 *   3. if (parked) CAS parked to false       3. if every input isEmpty(): park (bounded)
 *      and unpark the runner                 4. parked = false
 * </pre>
 * Because each side makes its write visible before it reads the other side's, at least one of
 * them sees the other: either the producer sees {@code parked} and unparks (an unpark that comes
 * before the park makes the park return at once), or the consumer's {@code isEmpty()} sees the
 * element and it does not park. The producer's fence is free for the multi-producer queues, where
 * publication claims the slot with a CAS on the index that {@code isEmpty()} reads; the SPSC and
 * single-producer Disruptor queues publish with release stores and issue an explicit fence, and
 * only when a wakeup is installed. When the runner is busy the producer's cost is that fence plus
 * two volatile reads (the queue's wakeup hook and the runner's {@code parked} flag, plain loads on
 * x86): no store to a shared line and no system call. Parks are
 * bounded by the wait strategy, so an input the stage did not declare is still seen, late.
 *
 * <p>A {@code CompositeStageRunner} is one consumer for all its members: every member's inputs
 * wake the same thread, and step 3 looks at the inputs of every member (and at members attached
 * but not yet started) before parking. Membership changes and stop requests are rare, so they
 * skip the flag and unpark the thread unconditionally; an unpark that comes while the thread runs
 * leaves a permit that makes its next park return at once, so none of them is lost either. Both
 * runners share the one implementation of the protocol (a package-private {@code IdleParker}).
 *
 * <h2>Threading rules</h2>
 * A stage is driven by one thread at a time, which may be shared with other stages; a stage must
 * not assume which. Queues have one consumer; the producer side is
 * multi-threaded for MPSC and multi-producer Disruptor queues and single-threaded otherwise.
 * Stages never block: they use {@code offer} and leave work queued when an output is full.
 */
package dev.parallax.core.stage;
