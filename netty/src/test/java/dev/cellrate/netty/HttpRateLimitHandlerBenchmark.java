package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import io.netty.buffer.Unpooled;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
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
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The handler's cost per request on an {@link EmbeddedChannel}: request head + last content in through the
 * handler to a terminal application that answers with one reused response, which goes out through the
 * handler. {@code passthrough} is a no-op duplex handler in the same place; the difference is the limiter.
 * Run with {@code -prof gc}: {@code passthrough}, {@code enforce} and {@code forwarded} must show the same
 * bytes per op.
 * <pre>
 *   mvn -B -q -pl netty -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 *   java --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED \
 *     -cp netty/target/test-classes:netty/target/classes:$(cat netty/target/cp.txt) \
 *     org.openjdk.jmh.Main HttpRateLimitHandlerBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
public class HttpRateLimitHandlerBenchmark
{
    private static final int KEYS = 1024;

    /** passthrough: no limiter; enforce: admitted; enforceCachedClock: admitted, the front's clock a cached
     *  value (what the clock read costs); forwarded: admitted, the key from two X-Forwarded-For lines (one
     *  trusted hop); enforceHeaders: admitted + RateLimit fields on the response; reject: every request
     *  refused (Netty's rejection response is built per request). */
    @Param({"passthrough", "enforce", "enforceCachedClock", "forwarded", "enforceHeaders", "reject"})
    public String handler;

    private EmbeddedChannel channel;
    private final HttpRequest[] requests = new HttpRequest[KEYS];
    private int next;

    @Setup
    public void setUp()
    {
        final FullHttpResponse response =
            new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        final ChannelHandler app = new ChannelInboundHandlerAdapter()
        {
            public void channelRead(final ChannelHandlerContext ctx, final Object msg)
            {
                if (msg instanceof LastHttpContent)
                {
                    ctx.write(response, ctx.voidPromise());
                }
                ReferenceCountUtil.release(msg);
            }
        };
        final ChannelHandler limiter;
        if ("passthrough".equals(handler))
        {
            limiter = new ChannelDuplexHandler();
        }
        else
        {
            final boolean reject = "reject".equals(handler);
            final CachedNanoClock cached = new CachedNanoClock();
            cached.update(System.nanoTime());
            final KeyedRateLimiter keyed = KeyedRateLimiter.builder(
                reject ? Limit.of(1, 1, TimeUnit.DAYS, 1) : Limit.perSecond(1_000_000_000L, 1_000_000_000L))
                .expectedKeys(KEYS * 2).clock("enforceCachedClock".equals(handler) ? cached : SystemNanoClock.INSTANCE)
                .build();
            final HttpRateLimit.Builder b = HttpRateLimit.enforce(keyed)
                .keyExtractor("forwarded".equals(handler) ? ForwardedKey.xForwardedFor(1, 64) : new HeaderKey("x-api-key", 32))
                .headersOnAdmitted("enforceHeaders".equals(handler));
            if ("enforceHeaders".equals(handler))
            {
                b.policy("bench", keyed.limit());
            }
            limiter = new HttpRateLimitHandler(b.build());
        }
        channel = new EmbeddedChannel(limiter, app);
        for (int i = 0; i < KEYS; i++)
        {
            requests[i] = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/api/items");
            requests[i].headers().set("x-api-key", "client-" + i);
            requests[i].headers().add("x-forwarded-for", "6.6.6." + (i & 255)); // what the client sent
            requests[i].headers().add("x-forwarded-for", "10.0." + (i >> 8) + "." + (i & 255)); // the proxy's line
        }
        if ("reject".equals(handler))
        {
            for (int i = 0; i < KEYS; i++)
            {
                request();
            }
        }
    }

    @TearDown
    public void tearDown()
    {
        channel.finishAndReleaseAll();
    }

    @Benchmark
    public Object request()
    {
        final HttpRequest request = requests[next++ & (KEYS - 1)];
        channel.pipeline().fireChannelRead(request);
        channel.pipeline().fireChannelRead(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.flushOutbound();
        Object out = null;
        Object msg;
        while (null != (msg = channel.readOutbound()))
        {
            out = msg;
            ReferenceCountUtil.release(msg); // a no-op on the app's reused response (empty buffer)
        }
        return out;
    }
}
