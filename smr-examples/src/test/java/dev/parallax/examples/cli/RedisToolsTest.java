package dev.parallax.examples.cli;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A missing Redis tool fails the Redis-tool tests unless they were declared optional. */
class RedisToolsTest {
    private static final String MISSING = "parallax-no-such-redis-tool";

    @Test
    void aMissingToolFailsTheTestByDefault() {
        assertThatThrownBy(() -> RedisTools.require(MISSING, "required")).isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining(MISSING).hasMessageContaining("-Dparallax.redisTools=optional");
    }

    @Test
    void aMissingToolSkipsTheTestOnlyWhenToolsAreOptional() {
        assertThatThrownBy(() -> RedisTools.require(MISSING, "optional")).isInstanceOf(TestAbortedException.class)
                .hasMessageContaining(MISSING);
    }

    @Test
    void aToolOnThePathPassesInEitherMode() {
        assertThatCode(() -> RedisTools.require("sh", "required")).doesNotThrowAnyException();
        assertThatCode(() -> RedisTools.require("sh", "optional")).doesNotThrowAnyException();
    }
}
