package dev.cellrate.spring.bench;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cellrate.spring.CellrateProperties;
import dev.cellrate.spring.CellrateRateLimiter;
import dev.cellrate.spring.HeaderStyle;
import dev.cellrate.spring.LimitRegistry;
import io.github.bucket4j.caffeine.Bucket4jCaffeine;
import org.agrona.concurrent.SystemNanoClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.reactivestreams.Subscription;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.cloud.gateway.filter.ratelimit.Bucket4jRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.core.convert.support.DefaultConversionService;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The rate limiter's own cost per request in Spring Cloud Gateway's {@code RequestRateLimiter}: one
 * {@code isAllowed(routeId, key)} and the subscription to its {@code Mono}, for keys drawn in turn from 10,000
 * client addresses, on
 * <ul>
 *   <li>{@code cellrate}: {@link CellrateRateLimiter} on a local limit;</li>
 *   <li>{@code cellrateNoHeaders}: the same with {@code headers: none};</li>
 *   <li>{@code bucket4j}: the gateway's own {@link Bucket4jRateLimiter} on Bucket4j's in-memory (Caffeine) proxy
 *       manager, with the same rate and burst;</li>
 *   <li>{@code floor}: {@code Mono.just(new Response(true, headers))}, what the gateway pays with no limiter.</li>
 * </ul>
 * {@code admit}: 1,000,000/s with a burst of 1,000,000 per key, every request admitted. {@code reject}: 1 per hour
 * with a burst of 1, every request after a key's first rejected.
 * <pre>
 *   java -jar spring/bench/target/benchmarks.jar LimiterCostBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Xms512m", "-Xmx512m"})
public class LimiterCostBenchmark
{
    static final int KEYS = 10_000;
    static final String ROUTE = "backend";
    static final String QUIET_ROUTE = "quiet";

    /** admit: every request admitted; reject: every request after a key's first rejected. */
    @Param({"admit", "reject"})
    public String traffic;

    private final String[] keys = new String[KEYS];
    private LimitRegistry registry;
    private CellrateRateLimiter cellrate;
    private Bucket4jRateLimiter bucket4j;
    private int next;
    private final Sink sink = new Sink();

    @Setup(Level.Trial)
    public void setUp()
    {
        final boolean admit = "admit".equals(traffic);
        final long rate = admit ? 1_000_000 : 1;
        final Duration period = admit ? Duration.ofSeconds(1) : Duration.ofHours(1);
        final long burst = admit ? 1_000_000 : 1;
        for (int i = 0; i < KEYS; i++)
        {
            keys[i] = "10." + (i >> 16 & 0xff) + "." + (i >> 8 & 0xff) + "." + (i & 0xff);
        }
        final ConfigurationService configurationService = new ConfigurationService(
            new DefaultListableBeanFactory(), DefaultConversionService::getSharedInstance, () -> null);

        final CellrateProperties properties = new CellrateProperties();
        final CellrateProperties.LimitProperties limit = new CellrateProperties.LimitProperties();
        limit.setRate(rate);
        limit.setPeriod(period);
        limit.setBurst(burst);
        limit.setExpectedKeys(2 * KEYS);
        limit.setFilter(false);
        properties.getLimits().put("per-client", limit);
        final CellrateProperties.LimitProperties quiet = new CellrateProperties.LimitProperties();
        quiet.setRate(rate);
        quiet.setPeriod(period);
        quiet.setBurst(burst);
        quiet.setExpectedKeys(2 * KEYS);
        quiet.setFilter(false);
        quiet.setHeaders(HeaderStyle.NONE);
        properties.getLimits().put("per-client-quiet", quiet);
        registry = new LimitRegistry(properties, new SystemNanoClock());
        cellrate = new CellrateRateLimiter(registry, configurationService);
        cellrate.getConfig().put(ROUTE, new CellrateRateLimiter.Config().setLimit("per-client").setCost(1));
        cellrate.getConfig().put(QUIET_ROUTE, new CellrateRateLimiter.Config().setLimit("per-client-quiet").setCost(1));

        bucket4j = new Bucket4jRateLimiter(
            Bucket4jCaffeine.<String>builderFor(Caffeine.newBuilder().maximumSize(4 * KEYS)).build().asAsync(),
            configurationService);
        bucket4j.getConfig().put(ROUTE, new Bucket4jRateLimiter.Config()
            .setCapacity(burst).setRefillTokens(rate).setRefillPeriod(period).setRequestedTokens(1));

        // each key's first request, so that reject runs see rejections only
        for (final String key : keys)
        {
            check(cellrate.isAllowed(ROUTE, key), true);
            check(cellrate.isAllowed(QUIET_ROUTE, key), true);
            check(bucket4j.isAllowed(ROUTE, key), true);
        }
        for (final String key : keys)
        {
            check(cellrate.isAllowed(ROUTE, key), admit);
            check(cellrate.isAllowed(QUIET_ROUTE, key), admit);
            check(bucket4j.isAllowed(ROUTE, key), admit);
        }
    }

    private void check(final Mono<Response> mono, final boolean allowed)
    {
        final Response r = subscribe(mono);
        if (r.isAllowed() != allowed)
        {
            throw new IllegalStateException(traffic + ": expected allowed=" + allowed + " but got " + r);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        registry.close();
    }

    private String nextKey()
    {
        final int i = next;
        next = i + 1 == KEYS ? 0 : i + 1;
        return keys[i];
    }

    /** Subscribes as the gateway's filter does and returns the value; each limiter here completes synchronously. */
    private Response subscribe(final Mono<Response> mono)
    {
        sink.value = null;
        mono.subscribe(sink);
        final Response r = sink.value;
        if (null == r)
        {
            throw new IllegalStateException("the Mono did not complete on the calling thread: " + sink.error);
        }
        return r;
    }

    @Benchmark
    public Response cellrate()
    {
        return subscribe(cellrate.isAllowed(ROUTE, nextKey()));
    }

    /** The same decision with {@code headers: none}: no header fields on admission, only Retry-After on rejection. */
    @Benchmark
    public Response cellrateNoHeaders()
    {
        return subscribe(cellrate.isAllowed(QUIET_ROUTE, nextKey()));
    }

    @Benchmark
    public Response bucket4j()
    {
        return subscribe(bucket4j.isAllowed(ROUTE, nextKey()));
    }

    @Benchmark
    public Response floor()
    {
        nextKey();
        return subscribe(Mono.just(new Response(true, Map.of())));
    }

    /** A reusable subscriber that keeps the value. */
    static final class Sink implements CoreSubscriber<Response>
    {
        Response value;
        Throwable error;

        public void onSubscribe(final Subscription s)
        {
            s.request(Long.MAX_VALUE);
        }

        public void onNext(final Response response)
        {
            value = response;
        }

        public void onError(final Throwable t)
        {
            error = t;
        }

        public void onComplete()
        {
        }
    }
}
