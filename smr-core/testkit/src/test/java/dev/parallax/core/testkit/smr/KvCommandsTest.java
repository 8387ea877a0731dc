package dev.parallax.core.testkit.smr;

import dev.parallax.core.CommandId;
import dev.parallax.core.check.KvOp;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The simulated state machine and its own at-most-once audit, independent of any session layer. */
class KvCommandsTest {

    private static ByteBuffer op(KvOp op) {
        return ByteBuffer.wrap(KvCommands.encode(op));
    }

    @Test
    void executesGetsPutsAndAppends() {
        KvCommands kv = new KvCommands();
        assertThat(kv.apply(new CommandId(1, 1), op(KvOp.get("a")))).isEqualTo(KvCommands.NONE);
        kv.apply(new CommandId(1, 2), op(KvOp.put("a", "x")));
        kv.apply(new CommandId(2, 1), op(KvOp.append("a", ",y")));
        assertThat(kv.apply(new CommandId(2, 2), op(KvOp.get("a")))).isEqualTo("x,y");
        assertThat(kv.applications()).hasSize(4).allSatisfy((id, times) -> assertThat(times).isEqualTo(1));
    }

    @Test
    void applyingOneCommandIdTwiceFailsEvenWithADifferentPayload() {
        KvCommands kv = new KvCommands();
        kv.apply(new CommandId(3, 5), op(KvOp.append("k", ",1")));
        assertThatThrownBy(() -> kv.apply(new CommandId(3, 5), op(KvOp.get("k"))))
                .isInstanceOf(AssertionError.class).hasMessageContaining("at-most-once violated")
                .hasMessageContaining("2 times");
    }

    @Test
    void theCountsTravelWithTheStateSoARestoredReplicaStillCatchesAReapplication() {
        KvCommands kv = new KvCommands();
        kv.apply(new CommandId(4, 1), op(KvOp.put("k", "v")));
        KvCommands restored = new KvCommands(kv.data(), kv.applications());
        assertThat(restored.data()).containsEntry("k", "v");
        assertThatThrownBy(() -> restored.apply(new CommandId(4, 1), op(KvOp.put("k", "v"))))
                .isInstanceOf(AssertionError.class).hasMessageContaining("at-most-once violated");
        restored.apply(new CommandId(4, 2), op(KvOp.put("k", "w")));
        assertThat(kv.data()).as("the copy is independent").containsEntry("k", "v");
    }
}
