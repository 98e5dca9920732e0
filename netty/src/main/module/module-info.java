/**
 * cellrate's HTTP limiter for Netty pipelines, written against the engine's exported API only. Netty itself is
 * the application's (a {@code provided} dependency); the PROXY protocol codec is needed only by
 * {@code ProxyProtocolKey}.
 */
module dev.cellrate.netty
{
    requires transitive dev.cellrate;
    requires transitive io.netty.common;
    requires transitive io.netty.buffer;
    requires transitive io.netty.transport;
    requires transitive io.netty.codec;
    requires transitive io.netty.codec.http;
    requires static io.netty.codec.haproxy;

    exports dev.cellrate.netty;
}
