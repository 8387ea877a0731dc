package dev.parallax.examples.kv;

import java.nio.ByteBuffer;

/**
 * What a command can do on the connection it arrived on. Every call appends exactly one reply
 * slot, so replies leave in request order. Implemented by the connection handler; called on its
 * event loop only.
 */
interface RespSession {

    /** Answers with a reply the front end computed itself. */
    void reply(RespReply reply);

    /** Sends an encoded {@link KvCommand} through the invoker; its reply fills this slot later. */
    void invoke(ByteBuffer kvCommand);

    /**
     * Sends a read-only {@link KvCommand} as a query where the connection's order allows
     * ({@link dev.parallax.examples.net.ReadWriteGate}), else as a command; its reply fills this slot later.
     */
    void read(ByteBuffer kvCommand);

    /** Answers OK, then closes the connection once the replies before it are written. */
    void quit();

    /** The server-unique connection id (CLIENT ID). */
    long id();

    /** The name set by CLIENT SETNAME or HELLO SETNAME, or null. */
    byte[] name();

    void name(byte[] name);
}
