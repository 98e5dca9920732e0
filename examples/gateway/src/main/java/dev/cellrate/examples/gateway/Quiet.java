package dev.cellrate.examples.gateway;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.Channel;

import java.io.IOException;
import java.io.PrintStream;

/**
 * The gateway's error reporting, for the end of every pipeline: an I/O error (a client resetting its
 * connection, a broken pipe, a closed channel) is the network doing what networks do and is not reported;
 * anything else is one line on stderr, never a stack trace. Either way the channel is closed.
 */
@ChannelHandler.Sharable
final class Quiet extends ChannelInboundHandlerAdapter
{
    static final Quiet INSTANCE = new Quiet();

    private Quiet()
    {
    }

    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        report(ctx.channel(), "connection", cause);
        ctx.close();
    }

    /**
     * @param channel the channel the error is about (its remote address goes into the line).
     * @param what    which side, for the line.
     * @param cause   the error.
     */
    static void report(final Channel channel, final String what, final Throwable cause)
    {
        if (cause instanceof IOException || cause.getCause() instanceof IOException)
        {
            return;
        }
        final PrintStream err = System.err;
        err.println("gateway: " + what + " from " + channel.remoteAddress() + " closed: " +
            cause.getClass().getSimpleName() + (null == cause.getMessage() ? "" : ": " + firstLine(cause.getMessage())));
    }

    private static String firstLine(final String s)
    {
        final int n = s.indexOf('\n');
        return n < 0 ? s : s.substring(0, n);
    }
}
