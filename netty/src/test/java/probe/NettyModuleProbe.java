package probe;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.netty.HeaderKey;
import dev.cellrate.netty.HttpRateLimit;
import dev.cellrate.netty.HttpRateLimitHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Run by {@code ModulePathIT} in a JVM of its own, with the packaged {@code dev.cellrate.netty} module, the
 * engine and Netty on the module path: prints the handler's module and the statuses of three requests through
 * the handler under a burst of 2.
 */
public final class NettyModuleProbe
{
    private NettyModuleProbe()
    {
    }

    public static void main(final String[] args)
    {
        final HttpRateLimit config = HttpRateLimit.enforce(
                KeyedRateLimiter.builder(Limit.perSecond(1, 2)).expectedKeys(16).build())
            .keyExtractor(new HeaderKey("x-api-key", 8)).policy("probe", Limit.perSecond(1, 2)).build();
        final EmbeddedChannel channel = new EmbeddedChannel(new HttpRateLimitHandler(config),
            new ChannelInboundHandlerAdapter()
            {
                public void channelRead(final ChannelHandlerContext ctx, final Object msg)
                {
                    if (msg instanceof LastHttpContent)
                    {
                        final FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                        ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                        ctx.writeAndFlush(ok);
                    }
                    ReferenceCountUtil.release(msg);
                }
            });
        final StringBuilder statuses = new StringBuilder();
        for (int i = 0; i < 3; i++)
        {
            final HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
            request.headers().set("x-api-key", "k");
            channel.writeInbound(request, LastHttpContent.EMPTY_LAST_CONTENT);
            final FullHttpResponse response = channel.readOutbound();
            statuses.append(' ').append(response.status().code());
            response.release();
        }
        channel.finishAndReleaseAll();
        System.out.println("module " + HttpRateLimitHandler.class.getModule().getName());
        System.out.println("statuses" + statuses);
    }
}
