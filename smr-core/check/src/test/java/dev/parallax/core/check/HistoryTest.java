package dev.parallax.core.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryTest {

    @Test
    void operationValidatesTimesAndOutputs() {
        assertThatThrownBy(() -> Operation.completed(1, KvOp.get("k"), "v", 10, 9))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Operation.completed(1, KvOp.get("k"), "v", 10, Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Operation<>(1, KvOp.get("k"), "v", 10, Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Operation.unknown(1, KvOp.get("k"), Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Operation.unknown(1, null, 0)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void precedenceIsStrict() {
        Operation<KvOp, String> a = Operation.completed(1, KvOp.get("k"), null, 0, 10);
        Operation<KvOp, String> touching = Operation.completed(2, KvOp.get("k"), null, 10, 20);
        Operation<KvOp, String> after = Operation.completed(2, KvOp.get("k"), null, 11, 20);
        Operation<KvOp, String> unknown = Operation.unknown(3, KvOp.put("k", "v"), 0);

        assertThat(a.precedes(touching)).isFalse();
        assertThat(a.precedes(after)).isTrue();
        assertThat(unknown.precedes(after)).isFalse();
        assertThat(unknown.outcomeUnknown()).isTrue();
        assertThat(a.outcomeUnknown()).isFalse();
    }

    @Test
    void partitionsByKeyInOrderOfFirstAppearance() {
        History<KvOp, String> history = History.<KvOp, String>builder()
                .ok(1, KvOp.put("b", "1"), null, 0, 1)
                .ok(1, KvOp.put("a", "2"), null, 2, 3)
                .unknown(2, KvOp.delete("b"), 4)
                .build();

        List<Partition<KvOp, String>> partitions = new KvModel().partition(history);

        assertThat(partitions).extracting(Partition::label).containsExactly("key=b", "key=a");
        assertThat(partitions.get(0).history().operations())
                .containsExactly(history.operations().get(0), history.operations().get(2));
        assertThat(new RegisterModel().partition(History.empty())).extracting(Partition::label).containsExactly("all");
    }

    @Test
    void filterKeepsOrderAndIsImmutable() {
        History<KvOp, String> history = History.<KvOp, String>builder()
                .ok(1, KvOp.get("a"), null, 0, 1)
                .unknown(1, KvOp.get("b"), 2)
                .ok(1, KvOp.get("c"), null, 3, 4)
                .build();

        History<KvOp, String> known = history.filter(op -> !op.outcomeUnknown());

        assertThat(known.operations()).extracting(op -> op.input().key()).containsExactly("a", "c");
        assertThat(history.filter(op -> true)).isSameAs(history);
        assertThat(History.of(history.operations())).isEqualTo(history).hasSameHashCodeAs(history);
        assertThatThrownBy(() -> history.operations().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(History.empty().isEmpty()).isTrue();
    }
}
