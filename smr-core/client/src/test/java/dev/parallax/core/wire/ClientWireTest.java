package dev.parallax.core.wire;

import dev.parallax.core.CommandId;
import dev.parallax.core.GroupSet;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client frames: destinations only when not default, old frames readable, bad frames refused cleanly. */
class ClientWireTest {
    private static final GroupSet SOME = GroupSet.of(2, 40);

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Strips the length field (as the frame decoder does) and returns the body after version and type. */
    private static ByteBuf frame(ByteBuf written, int[] type) {
        int length = written.readInt();
        assertThat(length).isEqualTo(written.readableBytes());
        type[0] = Frames.readType(written);
        return written;
    }

    private static ClientWire.Request request(ByteBuf written) {
        int[] type = new int[1];
        ByteBuf body = frame(written, type);
        return ClientWire.readRequest(type[0], body, 1 << 20);
    }

    private static ClientWire.Reply reply(ByteBuf written) {
        int[] type = new int[1];
        ByteBuf body = frame(written, type);
        return ClientWire.readReply(type[0], body);
    }

    @Test
    void requestsRoundTripWithAndWithoutGroups() {
        ByteBuf plain = Unpooled.buffer();
        ClientWire.writeRequest(plain, 42, 3, bytes("abc"));
        assertThat(plain.readableBytes()).isEqualTo(ClientWire.requestOverhead(GroupSet.DEFAULT) + 3).isEqualTo(26 + 3);
        assertThat(plain.getByte(5)).isEqualTo((byte) ClientWire.REQUEST);
        ClientWire.Request r = request(plain);
        assertThat(r.id()).isEqualTo(new CommandId(42, 3));
        assertThat(r.groups()).isSameAs(GroupSet.DEFAULT);
        assertThat(r.payload()).isEqualTo(bytes("abc"));

        ByteBuf grouped = Unpooled.buffer();
        ClientWire.writeRequest(grouped, new CommandId(42, SOME, 3), bytes("abc"));
        assertThat(grouped.readableBytes()).isEqualTo(ClientWire.requestOverhead(SOME) + 3).isEqualTo(34 + 3);
        assertThat(grouped.getByte(5)).isEqualTo((byte) ClientWire.GROUP_REQUEST);
        ClientWire.Request g = request(grouped);
        assertThat(g.id()).isEqualTo(new CommandId(42, SOME, 3));
        assertThat(g.payload()).isEqualTo(bytes("abc"));

        ByteBuf viaId = Unpooled.buffer();
        ClientWire.writeRequest(viaId, new CommandId(42, GroupSet.of(0), 3), bytes("abc"));
        ByteBuf again = Unpooled.buffer();
        ClientWire.writeRequest(again, 42, 3, bytes("abc"));
        assertThat(viaId).as("a default-group command leaves in the old REQUEST frame").isEqualTo(again);
    }

    @Test
    void anOldRequestFrameBuiltByHandIsADefaultGroupCommand() {
        byte[] payload = {9, 8};
        ByteBuf body = Unpooled.buffer().writeLong(77).writeLong(5).writeInt(2).writeBytes(payload);
        ClientWire.Request r = ClientWire.readRequest(ClientWire.REQUEST, body, 100);
        assertThat(r).isEqualTo(new ClientWire.Request(77, 5, ByteBuffer.wrap(payload)));
        assertThat(r.groups()).isEqualTo(GroupSet.DEFAULT);
    }

    @Test
    void repliesRoundTripWithAndWithoutGroups() {
        for (GroupSet groups : new GroupSet[]{GroupSet.DEFAULT, SOME}) {
            CommandId id = new CommandId(1, groups, 17);
            int frameType = groups.isDefault() ? ClientWire.REPLY : ClientWire.GROUP_REPLY;

            ByteBuf ok = Unpooled.buffer();
            ClientWire.writeOk(ok, id, bytes("fine"));
            assertThat(ok.getByte(5)).isEqualTo((byte) frameType);
            ClientWire.Reply r = reply(ok);
            assertThat(r.groups()).isEqualTo(groups);
            assertThat(r.sequence()).isEqualTo(17);
            assertThat(r.status()).isEqualTo(ClientWire.OK);
            assertThat(r.payload()).isEqualTo(bytes("fine"));

            ByteBuf rejected = Unpooled.buffer();
            ClientWire.writeMessage(rejected, id, ClientWire.REJECTED, "no such key");
            r = reply(rejected);
            assertThat(r.groups()).isEqualTo(groups);
            assertThat(r.status()).isEqualTo(ClientWire.REJECTED);
            assertThat(r.message()).isEqualTo("no such key");

            ByteBuf retry = Unpooled.buffer();
            ClientWire.writeRetryFrom(retry, id, 12);
            r = reply(retry);
            assertThat(r.groups()).isEqualTo(groups);
            assertThat(r.sequence()).isEqualTo(17);
            assertThat(r.status()).isEqualTo(ClientWire.RETRY_FROM);
            assertThat(r.next()).isEqualTo(12);
        }
        ByteBuf redirect = Unpooled.buffer();
        ClientWire.writeRedirect(redirect, 4, 2);
        ClientWire.Reply r = reply(redirect);
        assertThat(r.status()).isEqualTo(ClientWire.REDIRECT);
        assertThat(r.leader()).isEqualTo(2);
        assertThat(r.groups()).isEqualTo(GroupSet.DEFAULT);
    }

    @Test
    void anOldReplyFrameBuiltByHandIsAboutTheDefaultGroup() {
        ByteBuf body = Unpooled.buffer().writeLong(8).writeByte(ClientWire.OK).writeInt(1).writeByte(7);
        ClientWire.Reply r = ClientWire.readReply(ClientWire.REPLY, body);
        assertThat(r.groups()).isEqualTo(GroupSet.DEFAULT);
        assertThat(r.sequence()).isEqualTo(8);
        assertThat(r.payload()).isEqualTo(ByteBuffer.wrap(new byte[]{7}));
    }

    @Test
    void malformedFramesAreRefusedWithBadFrameException() {
        ByteBuf emptySet = Unpooled.buffer().writeLong(1).writeLong(1).writeLong(0).writeInt(0);
        assertThatThrownBy(() -> ClientWire.readRequest(ClientWire.GROUP_REQUEST, emptySet, 100))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("group set is empty");
        ByteBuf noSet = Unpooled.buffer().writeLong(1).writeLong(1).writeInt(0);
        assertThatThrownBy(() -> ClientWire.readRequest(ClientWire.GROUP_REQUEST, noSet, 100))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("truncated");
        ByteBuf lying = Unpooled.buffer().writeLong(1).writeLong(1).writeLong(2).writeInt(5).writeByte(1);
        assertThatThrownBy(() -> ClientWire.readRequest(ClientWire.GROUP_REQUEST, lying, 100))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("command length 5");
        assertThatThrownBy(() -> ClientWire.readRequest(ClientWire.GROUP_REPLY, Unpooled.buffer(), 100))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("unknown client frame type 8");
        assertThatThrownBy(() -> ClientWire.readReply(ClientWire.GROUP_REQUEST, Unpooled.buffer()))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("unknown client frame type 7");
        ByteBuf replyEmptySet = Unpooled.buffer().writeLong(0).writeLong(1).writeByte(ClientWire.RETRY_FROM).writeLong(1);
        assertThatThrownBy(() -> ClientWire.readReply(ClientWire.GROUP_REPLY, replyEmptySet))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("group set is empty");
    }

    @Test
    void queriesAndTheirAnswersRoundTrip() {
        ByteBuf q = Unpooled.buffer();
        ClientWire.writeQuery(q, 42, -7, bytes("GET k"));
        int[] type = new int[1];
        ClientWire.Query query = ClientWire.readQuery(frame(q, type), 100);
        assertThat(type[0]).isEqualTo(ClientWire.QUERY);
        assertThat(query).isEqualTo(new ClientWire.Query(42, -7, bytes("GET k")));
        ByteBuf ok = Unpooled.buffer();
        ClientWire.writeQueryOk(ok, -7, bytes("v"));
        assertThat(ClientWire.readQueryReply(frame(ok, type))).isEqualTo(new ClientWire.QueryReply(-7, ClientWire.OK, bytes("v"), null, -1));
        assertThat(type[0]).isEqualTo(ClientWire.QUERY_REPLY);
        ByteBuf rejected = Unpooled.buffer();
        ClientWire.writeQueryRejected(rejected, 1, "no");
        assertThat(ClientWire.readQueryReply(frame(rejected, type))).isEqualTo(new ClientWire.QueryReply(1, ClientWire.REJECTED, null, "no", -1));
        ByteBuf redirect = Unpooled.buffer();
        ClientWire.writeQueryRedirect(redirect, 2, 1);
        assertThat(ClientWire.readQueryReply(frame(redirect, type))).isEqualTo(new ClientWire.QueryReply(2, ClientWire.REDIRECT, null, null, 1));
        ByteBuf unsupported = Unpooled.buffer();
        ClientWire.writeQueryUnsupported(unsupported, 3);
        assertThat(ClientWire.readQueryReply(frame(unsupported, type))).isEqualTo(new ClientWire.QueryReply(3, ClientWire.UNSUPPORTED, null, null, -1));
    }

    @Test
    void malformedQueriesAreRefusedWithBadFrameException() {
        ByteBuf lying = Unpooled.buffer().writeLong(1).writeLong(1).writeInt(5).writeByte(1);
        assertThatThrownBy(() -> ClientWire.readQuery(lying, 100)).isInstanceOf(BadFrameException.class)
                .hasMessageContaining("query length 5");
        ByteBuf tooBig = Unpooled.buffer().writeLong(1).writeLong(1).writeInt(200).writeBytes(new byte[200]);
        assertThatThrownBy(() -> ClientWire.readQuery(tooBig, 100)).isInstanceOf(BadFrameException.class)
                .hasMessageContaining("limit 100");
        ByteBuf badStatus = Unpooled.buffer().writeLong(1).writeByte(9);
        assertThatThrownBy(() -> ClientWire.readQueryReply(badStatus)).isInstanceOf(BadFrameException.class)
                .hasMessageContaining("unknown query reply status 9");
        ByteBuf q = Unpooled.buffer();
        ClientWire.writeQuery(q, 3, 9, bytes("payload"));
        int body = q.readableBytes() - Frames.HEADER;
        for (int len = 0; len < body; len++) {
            ByteBuf cut = q.slice(Frames.HEADER, len);
            assertThatThrownBy(() -> ClientWire.readQuery(cut, 100)).as("%d bytes", len).isInstanceOf(BadFrameException.class);
        }
    }

    @Test
    void everyTruncationOfAGroupFrameIsABadFrame() {
        ByteBuf req = Unpooled.buffer();
        ClientWire.writeRequest(req, new CommandId(3, SOME, 9), bytes("payload"));
        ByteBuf rep = Unpooled.buffer();
        ClientWire.writeOk(rep, new CommandId(3, SOME, 9), bytes("answer"));
        int reqBody = req.readableBytes() - Frames.HEADER;
        int repBody = rep.readableBytes() - Frames.HEADER;
        for (int len = 0; len < reqBody; len++) {
            ByteBuf cut = req.slice(Frames.HEADER, len);
            assertThatThrownBy(() -> ClientWire.readRequest(ClientWire.GROUP_REQUEST, cut, 100)).as("%d bytes", len)
                    .isInstanceOf(BadFrameException.class);
        }
        for (int len = 0; len < repBody; len++) {
            ByteBuf cut = rep.slice(Frames.HEADER, len);
            assertThatThrownBy(() -> ClientWire.readReply(ClientWire.GROUP_REPLY, cut)).as("%d bytes", len)
                    .isInstanceOf(BadFrameException.class);
        }
        // Random corruption: a well-formed result or a BadFrameException, nothing else.
        Random random = new Random(5);
        byte[] body = new byte[reqBody];
        req.getBytes(Frames.HEADER, body);
        for (int round = 0; round < 10_000; round++) {
            byte[] copy = body.clone();
            copy[random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
            try {
                ClientWire.Request r = ClientWire.readRequest(ClientWire.GROUP_REQUEST, Unpooled.wrappedBuffer(copy), 100);
                assertThat(r.groups().bits()).isNotZero();
                assertThat(r.sequence()).isPositive();
            } catch (BadFrameException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
    }
}
