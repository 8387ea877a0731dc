package dev.parallax.core.testkit;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that only drives protocol cores in the seeded simulator ({@link Simulation},
 * {@link VirtualClock}): no sockets, no threads of its own, no wall-clock or CPU-share assertion, so
 * its verdict does not depend on how loaded the machine is. The build runs such classes in a
 * surefire execution of their own ({@code simulations}, JUnit tag {@value #TAG}) on
 * {@code -Dsim.forks} JVMs (1 by default), and leaves them out of the default
 * execution, where the timing-sensitive cluster tests run one class at a time.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(DeterministicSimulation.TAG)
public @interface DeterministicSimulation {
    /** The JUnit tag the build selects these classes by. */
    String TAG = "simulation";
}
