package dev.parallax.examples.kv;

import dev.parallax.core.client.CommandInvoker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** An invoker whose futures the test completes by hand, in any order; records what it was sent. */
final class ManualInvoker implements CommandInvoker {
    final List<KvCommand> commands = new ArrayList<>();
    final List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<ByteBuffer> invoke(ByteBuffer command) {
        commands.add(KvCommand.decode(command));
        CompletableFuture<ByteBuffer> future = new CompletableFuture<>();
        futures.add(future);
        return future;
    }

    synchronized CompletableFuture<ByteBuffer> future(int index) {
        return futures.get(index);
    }
}
