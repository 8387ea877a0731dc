package dev.parallax.core.check;

/**
 * A single {@code long} register with read, write and compare-and-set. The state is the boxed
 * register value. Stateless apart from the initial value, thread-safe, non-blocking.
 */
public final class RegisterModel implements Model<Long, RegisterOp, RegisterResult> {

    private final Long initial;

    /** A register that starts at 0. */
    public RegisterModel() {
        this(0L);
    }

    /** A register that starts at {@code initial}. */
    public RegisterModel(long initial) {
        this.initial = initial;
    }

    @Override
    public Long initialState() {
        return initial;
    }

    @Override
    public Long step(Long state, RegisterOp input, RegisterResult output) {
        if (input instanceof RegisterOp.Write write) {
            return write.value();
        }
        if (output == null) {
            return null;
        }
        if (input instanceof RegisterOp.Cas cas) {
            boolean applies = state == cas.expected();
            if (applies != output.success()) {
                return null;
            }
            return applies ? Long.valueOf(cas.update()) : state;
        }
        return output.value() == state ? state : null;
    }

    @Override
    public Long stepUnknownOutcome(Long state, RegisterOp input) {
        if (input instanceof RegisterOp.Write write) {
            return write.value();
        }
        if (input instanceof RegisterOp.Cas cas && state == cas.expected()) {
            return cas.update();
        }
        return state;
    }

    @Override
    public boolean isReadOnly(RegisterOp input) {
        return input instanceof RegisterOp.Read;
    }

    @Override
    public String describeInput(RegisterOp input) {
        return input.toString();
    }

    @Override
    public String describeOutput(RegisterOp input, RegisterResult output) {
        if (input instanceof RegisterOp.Read) {
            return output == null ? "null" : Long.toString(output.value());
        }
        if (input instanceof RegisterOp.Cas) {
            return output == null ? "null" : output.success() ? "ok" : "failed";
        }
        return "ok";
    }
}
