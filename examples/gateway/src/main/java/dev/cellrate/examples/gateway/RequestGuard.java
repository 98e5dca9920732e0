package dev.cellrate.examples.gateway;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Guards an HTTP/1.1 connection right after {@code HttpServerCodec}, before the rate limiter:
 * <ul>
 * <li><b>Malformed requests</b> ({@code decoderResult()} failed: a bad request line, a header without a
 * colon or with a control character, a bad {@code Content-Length}, a head too large) are answered 400
 * (431 for headers over the codec's limit, 414 for a request line over it) with {@code Connection: close},
 * and the connection is closed; a request of another major HTTP version gets 505. They are never charged and never reach the backend. The answer waits for the
 * responses owed to earlier pipelined requests, so responses stay in request order. A failure inside a body
 * (a bad chunk size) closes the connection at once: the request it belongs to is already on its way.</li>
 * <li><b>Slow request heads</b>: {@link HeadTimer} (placed before the codec) starts a timer at the first byte
 * of each request head; if the head is not decoded within the header-read timeout, the connection gets
 * {@code 408} (when nothing is owed) and is closed.</li>
 * </ul>
 * One instance per connection; every method runs on the connection's event loop.
 */
final class RequestGuard extends ChannelDuplexHandler
{
    private final HeadTimer timer;
    private long requestsPassed;
    private long responsesDone;
    private FullHttpResponse refusal;
    private boolean broken;
    private boolean responseStarted;

    RequestGuard(final HeadTimer timer)
    {
        this.timer = timer;
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (broken)
        {
            ReferenceCountUtil.release(msg); // everything after a malformed request is discarded
            return;
        }
        final DecoderResult result =
            msg instanceof DecoderResultProvider ? ((DecoderResultProvider)msg).decoderResult() : DecoderResult.SUCCESS;
        if (msg instanceof HttpRequest)
        {
            timer.headDone();
            final boolean http1 = 1 == ((HttpRequest)msg).protocolVersion().majorVersion();
            if (!result.isSuccess() || !http1)
            {
                ReferenceCountUtil.release(msg);
                broken = true;
                refusal = refusal(result.isSuccess() ? HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED : status(result.cause()));
                writeRefusalIfDue(ctx);
                return;
            }
            requestsPassed++;
        }
        else if (!result.isSuccess())
        {
            ReferenceCountUtil.release(msg);
            broken = true;
            ctx.close();
            return;
        }
        if (msg instanceof LastHttpContent)
        {
            timer.bodyDone();
        }
        ctx.fireChannelRead(msg);
    }

    public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise)
    {
        if (msg instanceof HttpResponse)
        {
            responseStarted = HttpStatusClass.INFORMATIONAL != ((HttpResponse)msg).status().codeClass();
        }
        if (msg instanceof LastHttpContent && responseStarted)
        {
            responseStarted = false;
            responsesDone++;
            ctx.write(msg, promise);
            writeRefusalIfDue(ctx);
            return;
        }
        ctx.write(msg, promise);
    }

    /** @return true if no response is owed on this connection. */
    boolean idle()
    {
        return responsesDone == requestsPassed && !responseStarted;
    }

    private void writeRefusalIfDue(final ChannelHandlerContext ctx)
    {
        if (null != refusal && idle())
        {
            final FullHttpResponse r = refusal;
            refusal = null;
            ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private static HttpResponseStatus status(final Throwable cause)
    {
        if (cause instanceof TooLongHttpLineException)
        {
            return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        }
        if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException)
        {
            return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        }
        return HttpResponseStatus.BAD_REQUEST;
    }

    private static FullHttpResponse refusal(final HttpResponseStatus status)
    {
        final ByteBuf body = Unpooled.copiedBuffer(status.reasonPhrase() + "\n", StandardCharsets.US_ASCII);
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
            .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }

    public void handlerRemoved(final ChannelHandlerContext ctx)
    {
        if (null != refusal)
        {
            refusal.release();
            refusal = null;
        }
    }

    /**
     * Before {@code HttpServerCodec}: times each request head from its first byte. Bytes that arrive while no
     * head is pending and no body is being read start the timer; the decoded head stops it.
     */
    static final class HeadTimer extends ChannelInboundHandlerAdapter
    {
        private static final byte[] TIMEOUT_RESPONSE = ("HTTP/1.1 408 Request Timeout\r\n" +
            "content-type: text/plain\r\ncontent-length: 16\r\nconnection: close\r\n\r\nRequest Timeout\n")
            .getBytes(StandardCharsets.US_ASCII);

        private final long headerTimeoutNs;
        private RequestGuard guard;
        private ChannelHandlerContext ctx;
        private ScheduledFuture<?> timeout;
        private boolean inBody;
        private final Runnable expire = this::expire;

        HeadTimer(final long headerTimeoutNs)
        {
            this.headerTimeoutNs = headerTimeoutNs;
        }

        RequestGuard newGuard()
        {
            guard = new RequestGuard(this);
            return guard;
        }

        public void handlerAdded(final ChannelHandlerContext ctx)
        {
            this.ctx = ctx;
        }

        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (null == timeout && !inBody && msg instanceof ByteBuf && ((ByteBuf)msg).isReadable())
            {
                timeout = ctx.executor().schedule(expire, headerTimeoutNs, TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelRead(msg);
        }

        void headDone()
        {
            cancel();
            inBody = true;
        }

        void bodyDone()
        {
            inBody = false;
        }

        private void expire()
        {
            timeout = null;
            if (null == guard || guard.idle())
            {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(TIMEOUT_RESPONSE)).addListener(ChannelFutureListener.CLOSE);
            }
            else
            {
                ctx.close();
            }
        }

        private void cancel()
        {
            if (null != timeout)
            {
                timeout.cancel(false);
                timeout = null;
            }
        }

        public void channelInactive(final ChannelHandlerContext ctx)
        {
            cancel();
            ctx.fireChannelInactive();
        }

        public void handlerRemoved(final ChannelHandlerContext ctx)
        {
            cancel();
        }
    }
}
