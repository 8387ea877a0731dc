package dev.parallax.core.client;

import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The default group-addressed invoke of a single-group invoker. */
class CommandInvokerTest {
    private final CommandInvoker echo = command -> CompletableFuture.completedFuture(command.duplicate());

    @Test
    void theDefaultGroupGoesThroughThePlainInvoke() throws Exception {
        ByteBuffer reply = echo.invoke(GroupSet.DEFAULT, ByteBuffer.wrap(new byte[]{7})).get();
        assertThat(reply.get(0)).isEqualTo((byte) 7);
    }

    @Test
    void anyOtherGroupSetFailsTheFutureNamingIt() {
        CompletableFuture<ByteBuffer> f = echo.invoke(GroupSet.of(1, 2), ByteBuffer.allocate(1));
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{1,2}");
    }
}
