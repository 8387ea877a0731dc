package dev.parallax.core.check;

/**
 * A {@code long} counter starting at 0: {@link CounterOp#add} returns the new value,
 * {@link CounterOp#read} the current one. The state is the boxed counter value. Stateless,
 * thread-safe, non-blocking.
 */
public final class CounterModel implements Model<Long, CounterOp, Long> {

    private static final Long ZERO = 0L;

    /** Creates the model. */
    public CounterModel() {
    }

    @Override
    public Long initialState() {
        return ZERO;
    }

    @Override
    public Long step(Long state, CounterOp input, Long output) {
        if (output == null) {
            return null;
        }
        long next = input instanceof CounterOp.Add add ? state + add.delta() : state;
        return next == output ? output : null;
    }

    @Override
    public Long stepUnknownOutcome(Long state, CounterOp input) {
        return input instanceof CounterOp.Add add ? Long.valueOf(state + add.delta()) : state;
    }

    @Override
    public boolean isReadOnly(CounterOp input) {
        return input instanceof CounterOp.Read;
    }

    @Override
    public String describeInput(CounterOp input) {
        return input.toString();
    }
}
