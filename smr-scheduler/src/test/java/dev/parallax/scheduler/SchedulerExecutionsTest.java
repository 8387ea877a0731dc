package dev.parallax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parallax.core.config.Settings;
import dev.parallax.core.exec.SequentialExecutor;
import dev.parallax.core.runtime.ExecutionProvider;
import dev.parallax.core.runtime.ExecutionRegistry;
import dev.parallax.core.spi.Executor;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The executors are found through the registry by name and built from the service's traits. */
class SchedulerExecutionsTest {

    private static ExecutionProvider.Context context(int workers, ServiceClasses service) {
        return new ExecutionProvider.Context(Settings.of(Map.of()), workers, service == null ? Map.of() : Map.of(ServiceClasses.class, service));
    }

    @Test
    @DisplayName("sequential, late scheduling, six early-scheduling modes and P-SMR are registered")
    void registered() {
        assertThat(ExecutionRegistry.executions().keySet()).containsExactlyInAnyOrder("sequential", "late-scheduling",
                "early-barrier", "early-busy-wait", "early-ws-queue", "early-ws-semi-blocked", "early-ws-non-blocked",
                "early-ws-opt", "p-smr");
        assertThatThrownBy(() -> ExecutionRegistry.execution("fast")).hasMessageContaining("execution must be one of");
    }

    @Test
    @DisplayName("a service with request classes runs under every scheduling executor; one without is refused, naming it")
    void schedulingNeedsClasses() {
        ServiceClasses withClasses = new ServiceClasses("counter", dev.parallax.scheduler.classmap.ReadWriteClasses::classMap, c -> 0);
        for (String name : new String[] {"late-scheduling", "early-busy-wait", "early-ws-opt"}) {
            Executor e = ExecutionRegistry.execution(name).create(context(2, withClasses));
            assertThat(e).as(name).isNotNull().isNotInstanceOf(SequentialExecutor.class);
        }
        assertThatThrownBy(() -> ExecutionRegistry.execution("early-barrier").create(context(2, ServiceClasses.none("bank"))))
                .hasMessage("execution=early-barrier needs the request classes of the service, and the bank has none; "
                        + "it runs only with execution=sequential");
        assertThatThrownBy(() -> ExecutionRegistry.execution("p-smr").create(context(2, withClasses)))
                .hasMessageContaining("execution=p-smr needs a service whose commands carry the groups of a C-G function")
                .hasMessageContaining("execution=sequential or a scheduling executor");
        assertThat(ExecutionRegistry.execution("sequential").create(context(1, null))).isInstanceOf(SequentialExecutor.class);
    }
}
