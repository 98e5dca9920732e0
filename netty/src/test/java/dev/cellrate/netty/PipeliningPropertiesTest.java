package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.concurrent.CachedNanoClock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pipelining as a property (jqwik): any sequence of pipelined GETs and POSTs with bodies for a few keys,
 * arriving in any chunking, answered by an application that lags behind by any amount. Every request gets
 * exactly one response, in request order, and the statuses are exactly what the engine decides in request
 * order: the first {@code burst} requests of each key are admitted, the rest refused (a fixed clock).
 * The handler runs on an {@code EmbeddedChannel} behind Netty's real codec; the bytes it writes are parsed
 * back into responses.
 */
final class PipeliningPropertiesTest
{
    static
    {
        LeakCheck.install();
    }

    /** Answers requests in order, but only when the test lets it (a backend that lags). */
    private static final class LaggingApp extends SimpleChannelInboundHandler<FullHttpRequest>
    {
        final ArrayDeque<String> owed = new ArrayDeque<>();
        ChannelHandlerContext ctx;

        public void handlerAdded(final ChannelHandlerContext ctx)
        {
            this.ctx = ctx;
        }

        protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request)
        {
            owed.addLast(request.uri() + ":" + request.content().readableBytes());
        }

        void answer(final int n)
        {
            for (int i = 0; i < n && !owed.isEmpty(); i++)
            {
                final ByteBuf body = Unpooled.copiedBuffer(owed.pollFirst(), StandardCharsets.US_ASCII);
                final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
                ctx.write(response);
            }
            ctx.flush();
        }
    }

    @Property(tries = 200)
    void everyPipelinedRequestIsAnsweredInOrderWithExactDecisions(
        @ForAll @Size(min = 1, max = 70) final List<@IntRange(min = 0, max = 5) Integer> requests,
        @ForAll @Size(min = 1, max = 20) final List<@IntRange(min = 1, max = 400) Integer> chunks,
        @ForAll @Size(min = 1, max = 20) final List<@IntRange(min = 0, max = 4) Integer> lags,
        @ForAll @IntRange(min = 1, max = 8) final int burst)
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000_000_000_000L);
        final HttpRateLimit config = HttpRateLimit.enforce(
                KeyedRateLimiter.builder(Limit.perSecond(1, burst)).expectedKeys(64).clock(clock).build())
            .keyExtractor(new HeaderKey("x-api-key", 8)).build();
        final LaggingApp app = new LaggingApp();
        final EmbeddedChannel server = new EmbeddedChannel(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
            new HttpRateLimitHandler(config), new HttpObjectAggregator(1 << 16), app);
        final StringBuilder responses = new StringBuilder();

        // request i: key (spec % 3), a POST with a body of (spec * 7) bytes when spec >= 3
        final StringBuilder wire = new StringBuilder();
        final List<String> expected = new ArrayList<>();
        final int[] seen = new int[3];
        for (int i = 0; i < requests.size(); i++)
        {
            final int spec = requests.get(i);
            final int key = spec % 3;
            final boolean post = spec >= 3;
            final String body = post ? "b".repeat(spec * 7) : "";
            wire.append(post ? "POST" : "GET").append(" /r/").append(i).append(" HTTP/1.1\r\nHost: x\r\nx-api-key: k")
                .append(key).append("\r\n");
            if (post)
            {
                wire.append("Content-Length: ").append(body.length()).append("\r\n");
            }
            wire.append("\r\n").append(body);
            expected.add(seen[key]++ < burst ? "200 /r/" + i + ":" + body.length() : "429");
        }
        final ByteBuf bytes = Unpooled.copiedBuffer(wire, StandardCharsets.US_ASCII);
        final List<String> received = new ArrayList<>();
        Throwable failure = null;
        try
        {
            int step = 0;
            while (bytes.isReadable())
            {
                final int n = Math.min(bytes.readableBytes(), chunks.get(step % chunks.size()));
                server.writeInbound(bytes.readRetainedSlice(n));
                app.answer(lags.get(step % lags.size()));
                server.runPendingTasks();
                readResponses(server, responses, received);
                step++;
            }
            for (int rounds = 0; rounds < 10 * requests.size() + 10 && received.size() < requests.size(); rounds++)
            {
                app.answer(1 + lags.get(rounds % lags.size()));
                server.runPendingTasks();
                readResponses(server, responses, received);
            }
            assertEquals(expected, received);
            assertTrue(server.isOpen(), "the connection is kept");
            assertTrue(server.config().isAutoRead(), "reading resumed once nothing waits");
        }
        catch (final RuntimeException | Error e)
        {
            failure = e;
            throw e;
        }
        finally
        {
            bytes.release();
            try
            {
                drainAndClose(server);
            }
            catch (final RuntimeException e)
            {
                if (null == failure)
                {
                    throw e;
                }
                failure.addSuppressed(e);
            }
        }
    }

    private static void drainAndClose(final EmbeddedChannel channel)
    {
        channel.finish();
        Object m;
        while (null != (m = channel.readInbound()))
        {
            ReferenceCountUtil.release(m);
        }
        while (null != (m = channel.readOutbound()))
        {
            ReferenceCountUtil.release(m);
        }
    }

    /** Copy what the server wrote, then parse whole responses (status line, Content-Length, body). */
    private static void readResponses(final EmbeddedChannel server, final StringBuilder wire, final List<String> into)
    {
        Object out;
        while (null != (out = server.readOutbound()))
        {
            final ByteBuf buf = (ByteBuf)out;
            wire.append(buf.toString(StandardCharsets.ISO_8859_1));
            buf.release();
        }
        while (true)
        {
            final int headEnd = wire.indexOf("\r\n\r\n");
            if (headEnd < 0)
            {
                return;
            }
            final String head = wire.substring(0, headEnd);
            final Matcher m = CONTENT_LENGTH.matcher(head);
            if (!m.find())
            {
                throw new AssertionError("no content-length in " + head);
            }
            final int bodyStart = headEnd + 4;
            final int bodyEnd = bodyStart + Integer.parseInt(m.group(1));
            if (wire.length() < bodyEnd)
            {
                return;
            }
            final int status = Integer.parseInt(head.substring(9, 12));
            into.add(200 == status ? "200 " + wire.substring(bodyStart, bodyEnd) : Integer.toString(status));
            wire.delete(0, bodyEnd);
        }
    }

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");
}
