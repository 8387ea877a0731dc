package dev.parallax.examples.kv;

/**
 * The decoder's verdict that a connection sent something that is not RESP or breaks a limit: the
 * connection gets {@code -ERR Protocol error: <reason>} after its earlier replies and is closed.
 *
 * @param reason the text after {@code "Protocol error: "}, in Redis' words where Redis has them
 */
record RespProtocolError(String reason) {
}
