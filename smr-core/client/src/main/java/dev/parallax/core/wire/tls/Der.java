package dev.parallax.core.wire.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The few DER encodings (ITU-T X.690) an X.509 v3 certificate needs: just enough for
 * {@link CertificateAuthority}. Every method returns one complete TLV. Stateless.
 */
final class Der {
    static final int BOOLEAN = 0x01;
    static final int INTEGER = 0x02;
    static final int BIT_STRING = 0x03;
    static final int OCTET_STRING = 0x04;
    static final int OID = 0x06;
    static final int UTF8_STRING = 0x0c;
    static final int UTC_TIME = 0x17;
    static final int GENERALIZED_TIME = 0x18;
    static final int SEQUENCE = 0x30;
    static final int SET = 0x31;

    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");
    private static final DateTimeFormatter GENERALIZED = DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'");

    private Der() {
    }

    /** A TLV of tag {@code tag} around {@code content}. */
    static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int n = content.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    /** The concatenation of already-encoded elements. */
    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... elements) {
        return tlv(SEQUENCE, concat(elements));
    }

    static byte[] set(byte[]... elements) {
        return tlv(SET, concat(elements));
    }

    static byte[] integer(BigInteger value) {
        return tlv(INTEGER, value.toByteArray());
    }

    static byte[] integer(long value) {
        return integer(BigInteger.valueOf(value));
    }

    static byte[] bool(boolean value) {
        return tlv(BOOLEAN, new byte[] {(byte) (value ? 0xff : 0)});
    }

    static byte[] octets(byte[] value) {
        return tlv(OCTET_STRING, value);
    }

    /** A BIT STRING of whole bytes (no unused bits), as signatures and keys are. */
    static byte[] bits(byte[] value) {
        byte[] content = new byte[value.length + 1];
        System.arraycopy(value, 0, content, 1, value.length);
        return tlv(BIT_STRING, content);
    }

    /**
     * A BIT STRING of named bits (key usage): bit 0 is the most significant bit of the first byte;
     * trailing zero bits are dropped, as DER requires.
     */
    static byte[] namedBits(int... bitNumbers) {
        int highest = -1;
        for (int b : bitNumbers) {
            highest = Math.max(highest, b);
        }
        if (highest < 0) {
            return tlv(BIT_STRING, new byte[] {0});
        }
        byte[] content = new byte[1 + highest / 8 + 1];
        for (int b : bitNumbers) {
            content[1 + b / 8] |= (byte) (0x80 >>> (b % 8));
        }
        content[0] = (byte) (7 - highest % 8);
        return tlv(BIT_STRING, content);
    }

    static byte[] utf8(String value) {
        return tlv(UTF8_STRING, value.getBytes(StandardCharsets.UTF_8));
    }

    /** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 §4.1.2.5). */
    static byte[] time(ZonedDateTime when) {
        ZonedDateTime utc = when.withZoneSameInstant(ZoneOffset.UTC).withNano(0);
        if (utc.getYear() < 2050) {
            return tlv(UTC_TIME, UTC.format(utc).getBytes(StandardCharsets.US_ASCII));
        }
        return tlv(GENERALIZED_TIME, GENERALIZED.format(utc).getBytes(StandardCharsets.US_ASCII));
    }

    /** An OBJECT IDENTIFIER from its dotted form, e.g. {@code 2.5.4.3}. */
    static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            base128(out, Long.parseLong(arcs[i]));
        }
        return tlv(OID, out.toByteArray());
    }

    private static void base128(ByteArrayOutputStream out, long value) {
        int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
        for (int g = groups - 1; g >= 0; g--) {
            int b = (int) ((value >>> (7 * g)) & 0x7f);
            out.write(g == 0 ? b : b | 0x80);
        }
    }

    /** A context-specific tag: {@code [number]}, constructed (EXPLICIT, or IMPLICIT of a constructed type) or primitive. */
    static int context(int number, boolean constructed) {
        return 0x80 | (constructed ? 0x20 : 0) | number;
    }
}
