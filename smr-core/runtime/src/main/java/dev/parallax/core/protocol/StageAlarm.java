package dev.parallax.core.protocol;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@link ProtocolStage}'s side of a safety alarm: counts each violation its applier raises,
 * keeps the first (the stage stops once it is set), logs it at ERROR with both decisions' origins
 * and passes it to the hook (the replica's stop-serving hook). A hook that throws is logged, never
 * propagated: the stage stops either way.
 *
 * <p>{@link #raised} runs on the protocol thread; the reads and {@link #hook} are thread-safe.
 */
final class StageAlarm implements SafetyAlarm {
    private final String stage;
    private final LongAdder count = new LongAdder();
    private volatile SafetyViolation first;
    private volatile SafetyAlarm hook = SafetyAlarm.NONE;

    StageAlarm(String stage) {
        this.stage = stage;
    }

    void hook(SafetyAlarm hook) {
        this.hook = Objects.requireNonNull(hook, "hook");
    }

    /** The first violation raised, or null. */
    SafetyViolation first() {
        return first;
    }

    /** Alarms raised so far (the meter reads it). */
    LongAdder count() {
        return count;
    }

    @Override
    public void raised(SafetyViolation v) {
        count.increment();
        if (first == null) {
            first = v;
        }
        org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ProtocolStage.class);
        log.error("{}: SAFETY ALARM: {}; this replica stops serving rather than diverge", stage, v.describe());
        try {
            hook.raised(v);
        } catch (RuntimeException e) {
            log.error("{}: the safety alarm hook failed", stage, e);
        }
    }
}
