package dev.cellrate.netty;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * Inbound messages a handler has not handled yet, in arrival order, and the socket reads they hold back: while
 * any wait, the channel's {@code autoRead} is off. It is turned back on only by {@link #resumeReading}, and only
 * if this backlog turned it off.
 * <p>
 * Threading: one per handler, the channel's event loop.
 */
final class ReadBacklog
{
    private ArrayDeque<Object> waiting;
    private boolean autoReadTurnedOff;

    boolean isEmpty()
    {
        return null == waiting || waiting.isEmpty();
    }

    /** Keep a message for later and stop reading the socket. */
    void add(final ChannelHandlerContext ctx, final Object msg)
    {
        if (null == waiting)
        {
            waiting = new ArrayDeque<>();
        }
        waiting.addLast(msg);
        pauseReading(ctx);
    }

    /** @return the oldest waiting message, left waiting, or null. */
    Object peek()
    {
        return null == waiting ? null : waiting.peekFirst();
    }

    /** Take the oldest waiting message off (after {@link #peek}). */
    void remove()
    {
        waiting.pollFirst();
    }

    /** Stop reading the socket (if it is read automatically). */
    void pauseReading(final ChannelHandlerContext ctx)
    {
        final ChannelConfig channelConfig = ctx.channel().config();
        if (!autoReadTurnedOff && channelConfig.isAutoRead())
        {
            channelConfig.setAutoRead(false);
            autoReadTurnedOff = true;
        }
    }

    /** Read again, if this backlog stopped reading. */
    void resumeReading(final ChannelHandlerContext ctx)
    {
        if (autoReadTurnedOff)
        {
            autoReadTurnedOff = false;
            ctx.channel().config().setAutoRead(true);
        }
    }

    /** Release every waiting message (never decided, so never charged). */
    void releaseAll()
    {
        if (null != waiting)
        {
            Object msg;
            while (null != (msg = waiting.pollFirst()))
            {
                ReferenceCountUtil.release(msg);
            }
        }
    }
}
