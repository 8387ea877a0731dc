package dev.parallax.scheduler;

import dev.parallax.core.runtime.ExecutionProvider;
import dev.parallax.core.spi.Executor;
import dev.parallax.scheduler.classmap.ClassMap;

import java.util.Locale;

/**
 * The executors of this module a cluster file can name ({@code execution=}), as
 * {@link ExecutionProvider}s: late scheduling (a CBASE dependency graph over the class map's
 * conflicts, seed 001 (early scheduling) §3.2), early scheduling in each {@link SyncMode} (seed 001
 * ch. 4 and 6), and P-SMR (seed 003 (Ring Paxos / Multi-Ring / P-SMR) ch. 6, Alg. 1). They read
 * the service's {@link ServiceClasses} trait: request classes for the scheduling executors, the C-G
 * function for P-SMR; a service without them is refused, naming it and what it runs with instead.
 *
 * <p>Each nested class is a {@link java.util.ServiceLoader} service; stateless and thread-safe;
 * {@code create} builds a new, unstarted executor and does not block.
 */
public final class SchedulerExecutions {

    private SchedulerExecutions() {
    }

    /** The service's traits, or a service with none (sequential execution only). */
    static ServiceClasses service(ExecutionProvider.Context context) {
        return context.trait(ServiceClasses.class).orElseGet(() -> ServiceClasses.none("service"));
    }

    /** What a service without what {@code name} needs is told to run with instead. */
    static String fallback(ServiceClasses service) {
        return "execution=sequential" + (service.hasClasses() ? " or a scheduling executor" : "");
    }

    /** The class map over the context's workers; refuses a service without request classes. */
    static ClassMap classes(String name, ServiceClasses service, int workers) {
        return service.classMapOver(workers).orElseThrow(() -> new IllegalArgumentException(
                "execution=" + name + " needs the request classes of the service, and the " + service.service()
                        + " has none; it runs only with execution=sequential"));
    }

    /** {@code late-scheduling}: CBASE with the service's class conflicts as the relation (seed 001 §3.2). */
    public static final class LateScheduling implements ExecutionProvider {
        @Override
        public String name() {
            return "late-scheduling";
        }

        @Override
        public String summary() {
            return "Late scheduling: a CBASE dependency graph over the class map's conflicts (seed 001 §3.2).";
        }

        @Override
        public Executor create(Context context) {
            ServiceClasses service = service(context);
            ClassMap classes = classes(name(), service, context.workers());
            return Execution.lateScheduling(ConflictRelation.byClass(classes, service.classifier()), context.workers());
        }
    }

    /** Early scheduling in one {@link SyncMode} (seed 001 ch. 4 and 6); one subclass per mode. */
    abstract static class EarlyScheduling implements ExecutionProvider {
        private final SyncMode mode;

        EarlyScheduling(SyncMode mode) {
            this.mode = mode;
        }

        @Override
        public final String name() {
            return "early-" + mode.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        @Override
        public final String summary() {
            return "Early scheduling with class maps, " + mode.name().toLowerCase(Locale.ROOT).replace('_', '-')
                    + " synchronisation (seed 001 ch. 4 and 6).";
        }

        @Override
        public final Executor create(Context context) {
            ServiceClasses service = service(context);
            return Execution.earlyScheduling(classes(name(), service, context.workers()), service.classifier(), mode);
        }
    }

    /** {@code early-barrier}: two barriers per SEQ command (seed 001 §4.3). */
    public static final class EarlyBarrier extends EarlyScheduling {
        public EarlyBarrier() {
            super(SyncMode.BARRIER);
        }
    }

    /** {@code early-busy-wait}: two-cycle counters (seed 001 §6.1). */
    public static final class EarlyBusyWait extends EarlyScheduling {
        public EarlyBusyWait() {
            super(SyncMode.BUSY_WAIT);
        }
    }

    /** {@code early-ws-queue}: idle workers steal whole ready queues (seed 001 §6.2.1). */
    public static final class EarlyWsQueue extends EarlyScheduling {
        public EarlyWsQueue() {
            super(SyncMode.WS_QUEUE);
        }
    }

    /** {@code early-ws-semi-blocked}: waiting workers steal, barrier after execution (seed 001 §6.2.2.1). */
    public static final class EarlyWsSemiBlocked extends EarlyScheduling {
        public EarlyWsSemiBlocked() {
            super(SyncMode.WS_SEMI_BLOCKED);
        }
    }

    /** {@code early-ws-non-blocked}: waiting workers steal, no barrier (seed 001 §6.2.2.2–6.2.2.3). */
    public static final class EarlyWsNonBlocked extends EarlyScheduling {
        public EarlyWsNonBlocked() {
            super(SyncMode.WS_NON_BLOCKED);
        }
    }

    /** {@code early-ws-opt}: non-blocked stealing with optimistic checks (seed 001 §6.2.2.4). */
    public static final class EarlyWsOpt extends EarlyScheduling {
        public EarlyWsOpt() {
            super(SyncMode.WS_OPT);
        }
    }

    /**
     * {@code p-smr}: one worker per multicast group, a command of one group executed by its worker
     * alone, a command of several groups by the lowest of its workers once all have met (seed 003
     * ch. 6, Alg. 1); the service must be partitioned by a C-G function. The workers are the
     * ordering's groups, which the caller checks against {@code execution.threads}.
     */
    public static final class Psmr implements ExecutionProvider {
        @Override
        public String name() {
            return "p-smr";
        }

        @Override
        public String summary() {
            return "P-SMR: one worker per multicast group, no scheduler (seed 003 ch. 6, Alg. 1).";
        }

        @Override
        public Executor create(Context context) {
            ServiceClasses service = service(context);
            if (!service.groupPartitioned()) {
                throw new IllegalArgumentException("execution=" + name() + " needs a service whose commands carry "
                        + "the groups of a C-G function and whose state machine is partitioned by them, and the "
                        + service.service() + " is not; it runs with " + fallback(service));
            }
            return Execution.psmr(context.workers(), service.groupsOf().apply(context.workers()));
        }
    }
}
