package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.channel.ServerChannel;

/**
 * The channel that stands for one client connection, where per-connection keys are cached: the channel
 * itself for an accepted connection (whose parent is the listening {@link ServerChannel}, shared by every
 * client), or the parent connection of a child channel that is not a connection of its own (an HTTP/2
 * stream). Nothing per client is ever stored on a server channel.
 */
final class ConnectionChannel
{
    private ConnectionChannel()
    {
    }

    /**
     * @param channel a request's channel.
     * @return the connection it belongs to.
     */
    static Channel of(final Channel channel)
    {
        final Channel parent = channel.parent();
        return null == parent || parent instanceof ServerChannel ? channel : parent;
    }
}
