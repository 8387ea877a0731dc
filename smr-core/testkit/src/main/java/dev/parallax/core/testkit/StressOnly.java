package dev.parallax.core.testkit;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test or test class that runs only in the stress profile ({@code mvn -B verify -Pstress}, which
 * sets {@code -Dparallax.stress=true}), or when that property is passed by hand. It is for tests
 * whose path the default run already covers elsewhere, so that the default run stays inside its
 * 15-minute CI budget; the javadoc of each use names where the default run covers it.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@EnabledIfSystemProperty(named = "parallax.stress", matches = "true",
        disabledReason = "stress profile only (mvn -Pstress, or -Dparallax.stress=true)")
public @interface StressOnly {
}
