package dev.parallax.core.check;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A string key-value map, partitioned by key: each key is an independent register-like object,
 * so the state is the value of one key ({@link Optional#empty()} when absent) and the model is
 * only meaningful on the partitions {@link #partition} produces. Stateless, thread-safe,
 * non-blocking.
 */
public final class KvModel implements Model<Optional<String>, KvOp, String> {

    /** Creates the model. */
    public KvModel() {
    }

    @Override
    public Optional<String> initialState() {
        return Optional.empty();
    }

    @Override
    public Optional<String> step(Optional<String> state, KvOp input, String output) {
        if (input instanceof KvOp.Get) {
            return Objects.equals(state.orElse(null), output) ? state : null;
        }
        return stepUnknownOutcome(state, input);
    }

    @Override
    public Optional<String> stepUnknownOutcome(Optional<String> state, KvOp input) {
        if (input instanceof KvOp.Put put) {
            return Optional.of(put.value());
        }
        if (input instanceof KvOp.Delete) {
            return Optional.empty();
        }
        if (input instanceof KvOp.Append append) {
            return Optional.of(state.orElse("") + append.suffix());
        }
        return state;
    }

    @Override
    public boolean isReadOnly(KvOp input) {
        return input instanceof KvOp.Get;
    }

    /** One partition per key, labelled {@code key=<key>}. */
    @Override
    public List<Partition<KvOp, String>> partition(History<KvOp, String> history) {
        return Partition.byKey(history, KvOp::key, "key=");
    }

    @Override
    public String describeInput(KvOp input) {
        return input.toString();
    }

    @Override
    public String describeOutput(KvOp input, String output) {
        if (input instanceof KvOp.Get) {
            return output == null ? "absent" : output;
        }
        return "ok";
    }

    @Override
    public String describeState(Optional<String> state) {
        return state.orElse("absent");
    }
}
