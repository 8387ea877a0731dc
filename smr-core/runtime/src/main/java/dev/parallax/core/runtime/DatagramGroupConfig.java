package dev.parallax.core.runtime;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * Where and how a replica joins a datagram group ({@link OrderingContext#datagramGroup}): an IPv4
 * multicast group and UDP port shared by every member, the local interface that sends and joins,
 * the largest datagram, the socket buffers asked of the kernel, the IP multicast TTL and test faults.
 * The defaults are the {@code mring.*} cluster-file defaults (seed 003 (Ring Paxos) §3.3.2: M-Ring
 * disseminates by ip-multicast):
 *
 * <table>
 * <caption>Defaults</caption>
 * <tr><th>field</th><th>key</th><th>default</th></tr>
 * <tr><td>{@link #group}</td><td>{@code mring.group}</td><td>{@value #DEFAULT_GROUP}</td></tr>
 * <tr><td>{@link #port}</td><td>{@code mring.port}</td><td>{@value #DEFAULT_PORT}</td></tr>
 * <tr><td>{@link #interfaceAddress}</td><td>{@code mring.interface}</td><td>{@value #DEFAULT_INTERFACE}</td></tr>
 * <tr><td>{@link #packetBytes}</td><td>{@code mring.packet.bytes}</td><td>{@value #DEFAULT_PACKET_BYTES}</td></tr>
 * <tr><td>{@link #socketBufferBytes}</td><td>{@code mring.socket.buffer.bytes}</td><td>{@value #DEFAULT_SOCKET_BUFFER_BYTES}</td></tr>
 * <tr><td>{@link #ttl}</td><td>{@code mring.ttl}</td><td>{@value #DEFAULT_TTL}</td></tr>
 * <tr><td>{@link #faults}</td><td>{@code mring.test.faults}</td><td>{@link DatagramFaults#NONE}</td></tr>
 * <tr><td>{@link #authenticated}</td><td>{@code mring.auth}</td><td>{@code true} ({@code hmac})</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe; validated on construction.
 *
 * @param group             IPv4 multicast address literal (224.0.0.0/4; 239.255.0.0/16 is site-local)
 * @param port              UDP port, 1..65535, the same at every member
 * @param interfaceAddress  IPv4 address of the local interface to send from and join on, or its name
 *                          ({@code eth0}: {@link #interfaceByName})
 * @param packetBytes       largest datagram, header included, {@value #MIN_PACKET_BYTES}..{@value #MAX_PACKET_BYTES}
 * @param socketBufferBytes receive and send buffer asked of the kernel ({@code SO_RCVBUF}, {@code SO_SNDBUF}), ≥ packetBytes
 * @param ttl               multicast TTL, 0..255 (1: the local network only)
 * @param faults            test faults applied to received datagrams
 * @param authenticated     whether every datagram carries an HMAC under the cluster secret and a
 *                          counter against replays ({@code mring.auth=hmac}); {@code false} only on
 *                          isolated test networks ({@code mring.auth=none})
 */
public record DatagramGroupConfig(String group, int port, String interfaceAddress, int packetBytes,
                                  int socketBufferBytes, int ttl, DatagramFaults faults, boolean authenticated) {

    /** Default group ({@code mring.group}). */
    public static final String DEFAULT_GROUP = "239.255.80.1";
    /** Default port ({@code mring.port}). */
    public static final int DEFAULT_PORT = 7400;
    /** Default interface ({@code mring.interface}): loopback, a single host. */
    public static final String DEFAULT_INTERFACE = "127.0.0.1";
    /** Default largest datagram ({@code mring.packet.bytes}). */
    public static final int DEFAULT_PACKET_BYTES = 8192;
    /** Default socket buffers ({@code mring.socket.buffer.bytes}): 4 MiB. */
    public static final int DEFAULT_SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;
    /** Default TTL ({@code mring.ttl}). */
    public static final int DEFAULT_TTL = 1;
    /** Smallest datagram size accepted. */
    public static final int MIN_PACKET_BYTES = 512;
    /** Largest datagram size accepted: the largest IPv4 UDP payload. */
    public static final int MAX_PACKET_BYTES = 65_507;
    /** Every default. */
    public static final DatagramGroupConfig DEFAULTS = builder().build();

    /** As the canonical constructor, authenticated. */
    public DatagramGroupConfig(String group, int port, String interfaceAddress, int packetBytes, int socketBufferBytes,
                               int ttl, DatagramFaults faults) {
        this(group, port, interfaceAddress, packetBytes, socketBufferBytes, ttl, faults, true);
    }

    /**
     * @throws IllegalArgumentException if a field is out of range, the group is not an IPv4 multicast
     *                                  literal or the interface neither an IPv4 literal nor an interface name
     */
    public DatagramGroupConfig {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(interfaceAddress, "interfaceAddress");
        Objects.requireNonNull(faults, "faults");
        byte[] g = ipv4("mring.group", group);
        if ((g[0] & 0xf0) != 0xe0) {
            throw new IllegalArgumentException("mring.group: " + group + " is not an IPv4 multicast address (224.0.0.0/4)");
        }
        if (!isInterfaceName(interfaceAddress)) {
            ipv4("mring.interface", interfaceAddress);
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("mring.port must be 1..65535, got " + port);
        }
        if (packetBytes < MIN_PACKET_BYTES || packetBytes > MAX_PACKET_BYTES) {
            throw new IllegalArgumentException("mring.packet.bytes must be " + MIN_PACKET_BYTES + ".." + MAX_PACKET_BYTES
                    + ", got " + packetBytes);
        }
        if (socketBufferBytes < packetBytes) {
            throw new IllegalArgumentException("mring.socket.buffer.bytes must be >= mring.packet.bytes (" + packetBytes
                    + "), got " + socketBufferBytes);
        }
        if (ttl < 0 || ttl > 255) {
            throw new IllegalArgumentException("mring.ttl must be 0..255, got " + ttl);
        }
    }

    /** The group as an address (a literal: no name lookup). */
    public InetAddress groupAddress() {
        return address(group);
    }

    /**
     * The interface as an address (a literal: no name lookup).
     *
     * @throws IllegalStateException if the interface is given by name ({@link #interfaceByName})
     */
    public InetAddress interfaceInetAddress() {
        if (interfaceByName()) {
            throw new IllegalStateException("mring.interface names the interface " + interfaceAddress + ", not an address");
        }
        return address(interfaceAddress);
    }

    /**
     * Whether {@code mring.interface} names the interface ({@code eth0}) rather than giving its
     * address: one cluster file then serves hosts whose addresses differ but whose interfaces share a
     * name (the hosts of a test bed, machines built from one image).
     */
    public boolean interfaceByName() {
        return isInterfaceName(interfaceAddress);
    }

    /** A Linux interface name: 1 to 15 letters, digits, '-', '_' or '.', not all digits and dots. */
    private static boolean isInterfaceName(String value) {
        return value.matches("[A-Za-z0-9_.-]{1,15}") && !value.matches("[0-9.]*");
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByAddress(ipv4("address", literal));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always a valid address
        }
    }

    /** The four bytes of a dotted-quad literal. */
    private static byte[] ipv4(String key, String literal) {
        String[] parts = literal.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException(key + ": '" + literal + "' is not an IPv4 address a.b.c.d");
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v;
            try {
                v = parts[i].isEmpty() || parts[i].length() > 3 ? -1 : Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                v = -1;
            }
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException(key + ": '" + literal + "' is not an IPv4 address a.b.c.d");
            }
            b[i] = (byte) v;
        }
        return b;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().group(group).port(port).interfaceAddress(interfaceAddress).packetBytes(packetBytes)
                .socketBufferBytes(socketBufferBytes).ttl(ttl).faults(faults).authenticated(authenticated);
    }

    /** Builds a {@link DatagramGroupConfig}; every field starts at its default. Not thread-safe. */
    public static final class Builder {
        private String group = DEFAULT_GROUP;
        private int port = DEFAULT_PORT;
        private String interfaceAddress = DEFAULT_INTERFACE;
        private int packetBytes = DEFAULT_PACKET_BYTES;
        private int socketBufferBytes = DEFAULT_SOCKET_BUFFER_BYTES;
        private int ttl = DEFAULT_TTL;
        private DatagramFaults faults = DatagramFaults.NONE;
        private boolean authenticated = true;

        private Builder() {
        }

        public Builder group(String group) {
            this.group = group;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder interfaceAddress(String interfaceAddress) {
            this.interfaceAddress = interfaceAddress;
            return this;
        }

        public Builder packetBytes(int packetBytes) {
            this.packetBytes = packetBytes;
            return this;
        }

        public Builder socketBufferBytes(int socketBufferBytes) {
            this.socketBufferBytes = socketBufferBytes;
            return this;
        }

        public Builder ttl(int ttl) {
            this.ttl = ttl;
            return this;
        }

        public Builder faults(DatagramFaults faults) {
            this.faults = faults;
            return this;
        }

        /** Whether datagrams are authenticated ({@code mring.auth}); default true. */
        public Builder authenticated(boolean authenticated) {
            this.authenticated = authenticated;
            return this;
        }

        /** @throws IllegalArgumentException as the record's constructor */
        public DatagramGroupConfig build() {
            return new DatagramGroupConfig(group, port, interfaceAddress, packetBytes, socketBufferBytes, ttl, faults,
                    authenticated);
        }
    }
}
