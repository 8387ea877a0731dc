package dev.parallax.core.client;

import dev.parallax.core.spi.CommandRouter;
import dev.parallax.core.GroupSet;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The routing invoker addresses plain invokes by its router and passes explicit ones through. */
class RoutingInvokerTest {
    private record Sent(GroupSet groups, byte first) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final CommandInvoker recorder = new CommandInvoker() {
        @Override
        public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
            return invoke(GroupSet.DEFAULT, command);
        }

        @Override
        public CompletableFuture<ByteBuffer> invoke(GroupSet groups, ByteBuffer command) {
            sent.add(new Sent(groups, command.get(command.position())));
            return CompletableFuture.completedFuture(command.duplicate());
        }
    };
    /** Routes by the first byte: the group is that byte mod 2; a negative byte goes to both groups. */
    private final CommandRouter byFirstByte = command -> {
        byte b = command.get(command.position());
        if (b == 99) {
            throw new IllegalArgumentException("unroutable");
        }
        return b < 0 ? GroupSet.of(0, 1) : GroupSet.of(b % 2);
    };

    @Test
    void aPlainInvokeGoesToTheRoutersGroupsWithTheCommandUntouched() throws Exception {
        RoutingInvoker invoker = new RoutingInvoker(recorder, byFirstByte);
        ByteBuffer command = ByteBuffer.wrap(new byte[]{0, 3, 5, 1}).position(1);
        ByteBuffer reply = invoker.invoke(command).get();
        invoker.invoke(ByteBuffer.wrap(new byte[]{4})).get();
        invoker.invoke(ByteBuffer.wrap(new byte[]{-1})).get();
        assertThat(sent).containsExactly(new Sent(GroupSet.of(1), (byte) 3), new Sent(GroupSet.of(0), (byte) 4),
                new Sent(GroupSet.of(0, 1), (byte) -1));
        assertThat(command.position()).isEqualTo(1);
        assertThat(reply.remaining()).isEqualTo(3);
    }

    @Test
    void aQueryIsRoutedAndAskedAsAQueryOfThoseGroups() throws Exception {
        List<GroupSet> asked = new ArrayList<>();
        CommandInvoker queries = new CommandInvoker() {
            @Override
            public CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
                throw new AssertionError("a query is not ordered here");
            }

            @Override
            public CompletableFuture<ByteBuffer> query(GroupSet groups, ByteBuffer query) {
                asked.add(groups);
                return CompletableFuture.completedFuture(query.duplicate());
            }
        };
        RoutingInvoker invoker = new RoutingInvoker(queries, byFirstByte);
        invoker.query(ByteBuffer.wrap(new byte[]{3})).get();
        invoker.query(ByteBuffer.wrap(new byte[]{-2})).get();
        assertThat(asked).containsExactly(GroupSet.of(1), GroupSet.of(0, 1));
        assertThat(invoker.query(ByteBuffer.wrap(new byte[]{99}))).isCompletedExceptionally();
        assertThat(new RoutingInvoker(recorder, byFirstByte).query(ByteBuffer.wrap(new byte[]{4})).get().get(0))
                .as("the default query of a group set orders it there").isEqualTo((byte) 4);
        assertThat(sent).containsExactly(new Sent(GroupSet.of(0), (byte) 4));
    }

    @Test
    void anExplicitGroupSetIsNotRerouted() throws Exception {
        new RoutingInvoker(recorder, byFirstByte).invoke(GroupSet.of(5), ByteBuffer.wrap(new byte[]{4})).get();
        assertThat(sent).containsExactly(new Sent(GroupSet.of(5), (byte) 4));
    }

    @Test
    void aRouterThatFailsFailsOnlyThatCommandAndSendsNothing() {
        RoutingInvoker invoker = new RoutingInvoker(recorder, byFirstByte);
        CompletableFuture<ByteBuffer> f = invoker.invoke(ByteBuffer.wrap(new byte[]{99}));
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unroutable");
        CompletableFuture<ByteBuffer> none = new RoutingInvoker(recorder, c -> null).invoke(ByteBuffer.wrap(new byte[]{1}));
        assertThatThrownBy(none::get).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(sent).isEmpty();
    }
}
