package dev.parallax.examples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedisIntegersTest {

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, 9, 10, 123456789, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
        Long.MIN_VALUE + 1})
    void parsesCanonicalDecimals(long value) {
        assertThat(RedisIntegers.parse(Long.toString(value).getBytes(StandardCharsets.US_ASCII))).isEqualTo(value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "+1", "01", "-0", "-01", " 1", "1 ", "1a", "0x10", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "123456789012345678901", "1e3"})
    void rejectsWhatRedisRejects(String text) {
        assertThatThrownBy(() -> RedisIntegers.parse(text.getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOf(NumberFormatException.class);
    }
}
