package dev.parallax.core.wire;

import dev.parallax.core.log.CapturedStderr;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The log rate limiter on a hand-driven clock: N lines per interval, then one summary, counts exact. */
class LogRateLimiterTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(123 * SECOND);
    private final LogRateLimiter limiter = new LogRateLimiter("test warnings", 3, Duration.ofSeconds(10), now::get);

    @Test
    void atMostNLinesPerIntervalThenTheNextIntervalOpensWithTheSuppressedCount() {
        List<LogRateLimiter.Admission> first = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            first.add(limiter.admit());
            now.addAndGet(SECOND / 1000); // 1000 warnings in one second
        }
        assertThat(first.subList(0, 3)).containsOnly(new LogRateLimiter.Admission(true, 0));
        assertThat(first.subList(3, 1000)).containsOnly(new LogRateLimiter.Admission(false, 0));
        assertThat(limiter.suppressedTotal()).isEqualTo(997);

        now.addAndGet(9 * SECOND - 1); // one nanosecond short of the interval: still the first window
        assertThat(limiter.admit()).isEqualTo(new LogRateLimiter.Admission(false, 0));
        now.addAndGet(1);
        assertThat(limiter.admit()).as("a new window reports what the last one suppressed")
                .isEqualTo(new LogRateLimiter.Admission(true, 998));
        assertThat(limiter.admit()).isEqualTo(new LogRateLimiter.Admission(true, 0));
        assertThat(limiter.admit()).isEqualTo(new LogRateLimiter.Admission(true, 0));
        assertThat(limiter.admit()).isEqualTo(new LogRateLimiter.Admission(false, 0));
        assertThat(limiter.suppressedTotal()).isEqualTo(999);

        now.addAndGet(3600 * SECOND); // a quiet hour later: one line, one summary, the count goes on
        assertThat(limiter.admit()).isEqualTo(new LogRateLimiter.Admission(true, 1));
        assertThat(limiter.suppressedTotal()).isEqualTo(999);
    }

    @Test
    void warnLogsTheSummaryBeforeTheFirstLineOfTheNextInterval() {
        Logger log = LoggerFactory.getLogger("dev.parallax.test.LogRateLimiterTest");
        String text;
        try (CapturedStderr err = new CapturedStderr()) {
            for (int i = 0; i < 50; i++) {
                limiter.warn(log, "bad thing {} happened: {}", i, "why");
            }
            now.addAndGet(10 * SECOND);
            limiter.warn(log, "bad thing {} happened: {}", 50, "why");
            text = err.text();
        }
        List<String> lines = text.lines().filter(l -> l.contains("LogRateLimiterTest")).toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).contains("WARN").endsWith("bad thing 0 happened: why");
        assertThat(lines.get(2)).endsWith("bad thing 2 happened: why");
        assertThat(lines.get(3)).contains("WARN").endsWith("test warnings: suppressed 47 similar warnings in the last 10 s");
        assertThat(lines.get(4)).endsWith("bad thing 50 happened: why");
    }

    @Test
    void aTrailingThrowableStillPrintsItsStack() {
        Logger log = LoggerFactory.getLogger("dev.parallax.test.LogRateLimiterTest");
        String text;
        try (CapturedStderr err = new CapturedStderr()) {
            limiter.warn(log, "closing {} after an error", "conn", new IllegalStateException("boom"));
            text = err.text();
        }
        assertThat(text).contains("closing conn after an error").contains("java.lang.IllegalStateException: boom")
                .contains("\tat ");
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new LogRateLimiter("x", 0, Duration.ofSeconds(1), now::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogRateLimiter("x", 1, Duration.ZERO, now::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
