package dev.parallax.ringpaxos.replica;

import dev.parallax.core.config.ClusterMembers;
import dev.parallax.core.net.DatagramPort;
import dev.parallax.core.spi.ByteBufferWire;
import dev.parallax.ringpaxos.MPacket;
import dev.parallax.ringpaxos.MPacketCodec;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An outsider on the datagram group: a plain {@link DatagramChannel} on loopback that sends
 * M-Ring datagrams it built itself, with the valid cluster tag (a checksum of the public member
 * list) and a sender id it claims. It knows no cluster secret, so it can write the unauthenticated
 * wire form ({@code magic version=1 tag sender type body}) or the authenticated one with a trailer
 * of its own invention ({@code version=2}, a made-up epoch, counter and tag). Not thread-safe; close it.
 */
final class DatagramForger implements AutoCloseable {
    private final DatagramChannel channel;
    private final InetSocketAddress target;
    private final int tag;
    private final MPacketCodec codec;

    DatagramForger(ClusterMembers members, String group, int port) throws IOException {
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.setOption(StandardSocketOptions.IP_MULTICAST_IF,
                NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1")));
        channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
        target = new InetSocketAddress(InetAddress.getByName(group), port);
        tag = DatagramPort.clusterTag(members);
        codec = new MPacketCodec(members.size());
    }

    /** Sends {@code p} claiming {@code sender}, once in each forged form: unauthenticated, and with a made-up trailer. */
    void send(int sender, MPacket p) throws IOException {
        channel.send(datagram(1, sender, p, false), target);
        channel.send(datagram(2, sender, p, true), target);
    }

    private ByteBuffer datagram(int version, int sender, MPacket p, boolean trailer) {
        ByteBufferWire.Writer w = new ByteBufferWire.Writer(8192);
        w.putByte('P').putByte('X').putByte(version).putInt(tag).putByte(sender >>> 8).putByte(sender & 0xff)
                .putByte(MPacketCodec.TYPE);
        codec.encode(p, w);
        if (trailer) {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            w.putLong(r.nextLong()).putLong(1);
            for (int i = 0; i < 16; i++) {
                w.putByte(r.nextInt(256));
            }
        }
        return w.toBuffer();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
