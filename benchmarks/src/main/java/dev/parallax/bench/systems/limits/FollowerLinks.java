package dev.parallax.bench.systems.limits;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One leader event loop's connections to the followers, shared by the client connections of that
 * loop: relays each client read burst as one batch to every follower and answers the batch's
 * commands when the first follower acknowledges it. Followers acknowledge in order over TCP, so an
 * acknowledgement of batch {@code b} by either follower answers every batch up to {@code b}.
 *
 * <p>Confined to its event loop except {@link #connect}, which blocks the calling thread (not the
 * loop) until every follower connection is up. Writes are flushed once per loop turn (followers)
 * and once per acknowledgement burst (clients), not per command.
 */
final class FollowerLinks {
    private final EventLoop loop;
    private final Channel[] followers;
    private final PendingBatches pending = new PendingBatches();
    private final List<ClientLink> unflushedClients = new ArrayList<>();
    private final Runnable flushFollowers = this::flushFollowers;
    private long nextBatch = 1;
    private long answered;
    private boolean flushScheduled;

    private FollowerLinks(EventLoop loop, int followers) {
        this.loop = loop;
        this.followers = new Channel[followers];
    }

    /**
     * Connects {@code loop} to every follower; blocks until connected.
     *
     * @throws IOException if a follower cannot be reached
     */
    static FollowerLinks connect(EventLoop loop, List<InetSocketAddress> followers) throws IOException {
        FollowerLinks links = new FollowerLinks(loop, followers.size());
        for (int f = 0; f < followers.size(); f++) {
            Bootstrap b = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new AckReader(links));
            try {
                links.followers[f] = b.connect(followers.get(f)).sync().channel();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while connecting to follower " + followers.get(f), e);
            } catch (Exception e) {
                throw new IOException("cannot connect to follower " + followers.get(f), e);
            }
        }
        return links;
    }

    /**
     * Sends one batch: {@code slices} hold {@code commands} framed commands, {@code bytes} in all.
     * Takes ownership of the slices. Event loop only.
     */
    void relay(ClientLink client, List<ByteBuf> slices, int commands, int bytes) {
        long id = nextBatch++;
        ByteBuf header = followers[0].alloc().buffer(BatchWire.HEADER_BYTES)
                .writeInt(BatchWire.HEADER_BYTES - Integer.BYTES + bytes).writeLong(id).writeInt(commands);
        for (int f = 0; f < followers.length; f++) {
            boolean last = f == followers.length - 1;
            Channel ch = followers[f];
            ch.write(last ? header : header.retainedDuplicate(), ch.voidPromise());
            for (int i = 0; i < slices.size(); i++) {
                ByteBuf s = slices.get(i);
                ch.write(last ? s : s.retainedDuplicate(), ch.voidPromise());
            }
        }
        pending.add(client, commands);
        if (!flushScheduled) {
            flushScheduled = true;
            loop.execute(flushFollowers);
        }
    }

    /** A follower acknowledged batch {@code batchId}: answers every batch up to it not yet answered. */
    void onAck(long batchId) {
        while (answered < batchId && !pending.isEmpty()) {
            answered++;
            ClientLink client = pending.oldestClient();
            if (client.writeReplies(answered, pending.oldestCount())) {
                unflushedClients.add(client);
            }
            pending.removeOldest();
        }
    }

    /** End of an acknowledgement read burst: flushes the replies written during it. */
    void flushClients() {
        for (int i = 0; i < unflushedClients.size(); i++) {
            unflushedClients.get(i).flush();
        }
        unflushedClients.clear();
    }

    private void flushFollowers() {
        flushScheduled = false;
        for (Channel ch : followers) {
            ch.flush();
        }
    }
}
