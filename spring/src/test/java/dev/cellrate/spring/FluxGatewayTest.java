package dev.cellrate.spring;

import dev.cellrate.Limit;
import dev.cellrate.redis.RedisServer;
import dev.cellrate.stat.StatKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The WebFlux web filter and the Spring Cloud Gateway rate limiter in one real reactive application on Reactor
 * Netty, routing to a real backend, with a Redis-backed route on a real redis-server.
 */
class FluxGatewayTest
{
    static RedisServer redis;
    static EchoBackend backend;
    static ConfigurableApplicationContext context;
    static int port;
    static LimitRegistry registry;

    @BeforeAll
    static void start() throws Exception
    {
        redis = RedisServer.start();
        backend = new EchoBackend();
        final String r = "spring.cloud.gateway.server.webflux.routes";
        context = new SpringApplicationBuilder(FluxApp.class).web(WebApplicationType.REACTIVE).properties(
            "server.port=0",
            "spring.main.banner-mode=off",
            "cellrate.limits.flux.rate=2",
            "cellrate.limits.flux.burst=3",
            "cellrate.limits.flux.paths=/flux/**",
            "cellrate.limits.flux.key.source=header",
            "cellrate.limits.flux.key.header=X-Client",
            "cellrate.limits.fluxdry.rate=2",
            "cellrate.limits.fluxdry.burst=3",
            "cellrate.limits.fluxdry.paths=/fluxdry/**",
            "cellrate.limits.fluxdry.mode=dry-run",
            "cellrate.limits.fluxdry.key.source=header",
            "cellrate.limits.fluxdry.key.header=X-Client",
            "cellrate.limits.gw.rate=2",
            "cellrate.limits.gw.burst=3",
            "cellrate.limits.gw.filter=false",
            "cellrate.limits.gwredis.rate=1",
            "cellrate.limits.gwredis.period=1m",
            "cellrate.limits.gwredis.burst=3",
            "cellrate.limits.gwredis.filter=false",
            "cellrate.limits.gwredis.backend=redis",
            "cellrate.limits.fluxshape.rate=10",
            "cellrate.limits.fluxshape.burst=6",
            "cellrate.limits.fluxshape.paths=/fluxshape/**",
            "cellrate.limits.fluxshape.mode=shape",
            "cellrate.limits.fluxshape.max-delay=300ms",
            "cellrate.limits.fluxlogin.rate=1",
            "cellrate.limits.fluxlogin.period=1m",
            "cellrate.limits.fluxlogin.burst=2",
            "cellrate.limits.fluxlogin.paths=/fluxlogin",
            "cellrate.limits.fluxlogin.mode=charge-after",
            "cellrate.limits.fluxlogin.charge-statuses=401",
            "cellrate.limits.fluxlogin.key.source=header",
            "cellrate.limits.fluxlogin.key.header=X-User",
            "cellrate.limits.fluxlive.rate=1",
            "cellrate.limits.fluxlive.period=1m",
            "cellrate.limits.fluxlive.burst=2",
            "cellrate.limits.fluxlive.paths=/fluxlive/**",
            "cellrate.limits.fluxlive.reconfigurable=true",
            "cellrate.limits.fluxlive.key.source=header",
            "cellrate.limits.fluxlive.key.header=X-Client",
            "cellrate.limits.me.rate=1",
            "cellrate.limits.me.period=1m",
            "cellrate.limits.me.burst=2",
            "cellrate.limits.me.paths=/me/**",
            "cellrate.limits.me.key.source=principal",
            "cellrate.limits.fluxfwd.rate=1",
            "cellrate.limits.fluxfwd.period=1m",
            "cellrate.limits.fluxfwd.burst=1",
            "cellrate.limits.fluxfwd.paths=/fluxfwd/**",
            "cellrate.limits.fluxfwd.key.source=forwarded",
            "cellrate.limits.fluxfwd.key.trusted-hops=1",
            "cellrate.limits.fluxuser.rate=1",
            "cellrate.limits.fluxuser.period=1m",
            "cellrate.limits.fluxuser.burst=2",
            "cellrate.limits.fluxuser.filter=false",
            "cellrate.redis.uri=" + redis.url(),
            "cellrate.redis.fail-policy=closed",
            "cellrate.redis.timeout=2s",
            r + "[0].id=gw",
            r + "[0].uri=http://127.0.0.1:" + backend.port(),
            r + "[0].predicates[0]=Path=/gw/**",
            r + "[0].filters[0].name=RequestRateLimiter",
            r + "[0].filters[0].args.rate-limiter=#{@cellrateRateLimiter}",
            r + "[0].filters[0].args.key-resolver=#{@clientKey}",
            r + "[0].filters[0].args[cellrate-rate-limiter.limit]=gw",
            r + "[1].id=gwr",
            r + "[1].uri=http://127.0.0.1:" + backend.port(),
            r + "[1].predicates[0]=Path=/gwr/**",
            r + "[1].filters[0].name=RequestRateLimiter",
            r + "[1].filters[0].args.rate-limiter=#{@cellrateRateLimiter}",
            r + "[1].filters[0].args.key-resolver=#{@clientKey}",
            r + "[1].filters[0].args[cellrate-rate-limiter.limit]=gwredis"
        ).run();
        port = ((WebServerApplicationContext)context).getWebServer().getPort();
        registry = context.getBean(LimitRegistry.class);
    }

    @AfterAll
    static void stop() throws Exception
    {
        if (null != context)
        {
            context.close();
        }
        if (null != backend)
        {
            backend.close();
        }
        if (null != redis)
        {
            redis.close();
        }
    }

    @Test
    void webFilterExactCountsAndHeadersEqualTheEngines()
    {
        final EngineTwin twin = new EngineTwin("flux", Limit.of(2, 1, TimeUnit.SECONDS, 3));
        int ok = 0;
        for (int i = 0; i < 9; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/flux/x", "X-Client", "exact");
            final Map<String, String> expected = twin.decide("exact", FluxApp.CLOCK.clock.nanoTime());
            assertEquals(twin.admitted() ? 200 : 429, r.statusCode(), "request " + i);
            for (final Map.Entry<String, String> e : expected.entrySet())
            {
                assertEquals(e.getValue(), r.headers().firstValue(e.getKey()).orElse(null), e.getKey() + " of " + i);
            }
            ok += 200 == r.statusCode() ? 1 : 0;
        }
        assertEquals(3, ok);
    }

    @Test
    void webFilterRetryAtTheAdvertisedSecondIsAdmitted()
    {
        HttpResponse<String> r;
        do
        {
            r = Http.get(port, "/flux/x", "X-Client", "retry");
        }
        while (200 == r.statusCode());
        final long seconds = Long.parseLong(r.headers().firstValue("retry-after").orElseThrow());
        assertEquals(1, seconds);
        FluxApp.CLOCK.clock.advanceNs(TimeUnit.SECONDS.toNanos(seconds));
        assertEquals(200, Http.get(port, "/flux/x", "X-Client", "retry").statusCode());
    }

    @Test
    void webFilterDryRunMarksExactlyWhatEnforcingRejects()
    {
        final long before = registry.get("fluxdry").stats().outcome(StatKind.WOULD_REJECT);
        int marked = 0;
        int rejected = 0;
        for (int i = 0; i < 10; i++)
        {
            final HttpResponse<String> dry = Http.get(port, "/fluxdry/x", "X-Client", "twin");
            assertEquals(200, dry.statusCode());
            marked += dry.headers().firstValue("x-ratelimit-dry-run").isPresent() ? 1 : 0;
            rejected += 429 == Http.get(port, "/flux/x", "X-Client", "twin").statusCode() ? 1 : 0;
        }
        assertTrue(rejected > 0);
        assertEquals(rejected, marked);
        assertEquals(rejected, registry.get("fluxdry").stats().outcome(StatKind.WOULD_REJECT) - before);
    }

    @Test
    void gatewayRoutesToTheBackendAndRejectsWithTheEnginesHeaders()
    {
        final EngineTwin twin = new EngineTwin("gw", Limit.of(2, 1, TimeUnit.SECONDS, 3));
        final long hitsBefore = backend.hits.get();
        int ok = 0;
        for (int i = 0; i < 8; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/gw/hello", "X-Client", "gw-exact");
            final Map<String, String> expected = twin.decide("gw-exact", FluxApp.CLOCK.clock.nanoTime());
            assertEquals(twin.admitted() ? 200 : 429, r.statusCode(), "request " + i);
            for (final Map.Entry<String, String> e : expected.entrySet())
            {
                assertEquals(e.getValue(), r.headers().firstValue(e.getKey()).orElse(null), e.getKey() + " of " + i);
            }
            if (200 == r.statusCode())
            {
                ok++;
                assertEquals("backend /gw/hello", r.body());
            }
        }
        assertEquals(3, ok);
        assertEquals(3, backend.hits.get() - hitsBefore, "rejected requests never reach the backend");
        FluxApp.CLOCK.clock.advanceNs(TimeUnit.SECONDS.toNanos(1));
        assertEquals(200, Http.get(port, "/gw/hello", "X-Client", "gw-exact").statusCode(), "at the advertised second");
        assertTrue(FluxApp.CLOCK.threads.stream().allMatch(t -> t.startsWith("reactor-http-")),
            "local decisions run on the event loop: " + FluxApp.CLOCK.threads);
        assertTrue(FluxApp.CLOCK.allNonBlocking, "every local decision ran on a non-blocking Reactor thread");
    }

    @Test
    void gatewayOnRedisCountsExactlyAcrossTheSharedServer()
    {
        final long startNs = System.nanoTime();
        int ok = 0;
        String retryAfter = null;
        for (int i = 0; i < 6; i++)
        {
            final HttpResponse<String> r = Http.get(port, "/gwr/x", "X-Client", "redis-exact");
            if (200 == r.statusCode())
            {
                ok++;
                assertEquals("backend /gwr/x", r.body());
            }
            else
            {
                assertEquals(429, r.statusCode());
                retryAfter = r.headers().firstValue("retry-after").orElse(null);
                assertTrue(r.headers().firstValue("ratelimit").orElse("").startsWith("\"gwredis\";r=0;t="),
                    r.headers().toString());
            }
        }
        final long elapsedNs = System.nanoTime() - startNs;
        assertEquals(3, ok);
        // rate 1/min, burst 3: the next permit is 60 s after the first admission, and the refusal came at most
        // elapsedNs after it (on the server's clock too); rounded up, so 60 - elapsed <= retry-after <= 60
        final long seconds = Long.parseLong(retryAfter);
        assertTrue(seconds <= 60 && TimeUnit.SECONDS.toNanos(seconds) >= TimeUnit.SECONDS.toNanos(60) - elapsedNs,
            retryAfter + " s after " + elapsedNs + " ns of requests");
    }

    /**
     * Fails if a Reactor event-loop thread waits in cellrate code, or in code cellrate calls, other than Lettuce's
     * own writer lock. Reactor Netty's loops wait in the selector (native, not counted), so any Java-level wait or
     * monitor block on them during a burst of gateway requests, on the local route and on the Redis route, raises
     * their {@code ThreadInfo} waited or blocked counts, and a flight recording (parks, monitor enters and waits,
     * sleeps, threshold 0, with the innermost 64 frames) names where each happened. A wait with a
     * {@code dev.cellrate} frame on its stack fails the test unless the code that waited (the innermost frame
     * outside the JDK) is Lettuce's {@code SharedLock.incrementWriters}: Lettuce takes that {@code ReentrantLock}
     * on every command it sends, so a send from the event loop may wait there briefly while another thread sends
     * on the same connection. Waits with no cellrate frame (Spring's response write barrier, Netty) are the
     * frameworks' own and are printed. A limiter that called cellrate-redis's synchronous API on the event loop
     * would wait in cellrate-redis, once per request.
     */
    @Test
    void gatewayDecisionsNeverParkTheEventLoop() throws Exception
    {
        burst("warm"); // the same traffic once first: class loading and pool set-up may block once
        final Path dump = Files.createTempFile("flux-parks", ".jfr");
        final int redisOk;
        final long waits;
        try (Recording recording = new Recording())
        {
            for (final String event : WAIT_EVENTS)
            {
                recording.enable(event).withThreshold(Duration.ZERO).withStackTrace();
            }
            recording.start();
            final long before = eventLoopWaits();
            redisOk = burst("park");
            waits = eventLoopWaits() - before;
            recording.stop();
            recording.dump(dump);
        }
        final List<String> cellrateWaits = new ArrayList<>();
        final List<String> lettuceSends = new ArrayList<>();
        final List<String> frameworks = new ArrayList<>();
        try
        {
            for (final RecordedEvent event : RecordingFile.readAllEvents(dump))
            {
                final RecordedThread thread = event.getThread();
                if (null == thread || null == thread.getJavaName() || !thread.getJavaName().startsWith("reactor-http-"))
                {
                    continue;
                }
                final String where = event.getEventType().getName() + " on " + thread.getJavaName() + " at " +
                    frames(event.getStackTrace());
                if (!inCellrate(event.getStackTrace()))
                {
                    frameworks.add(where);
                }
                else
                {
                    (LETTUCE_SEND_LOCK.equals(waiter(event.getStackTrace())) ? lettuceSends : cellrateWaits).add(where);
                }
            }
        }
        finally
        {
            Files.deleteIfExists(dump);
        }
        System.out.println("[gatewayDecisionsNeverParkTheEventLoop] event-loop waits counted " + waits +
            "; recorded: in cellrate " + cellrateWaits.size() + ", in Lettuce's writer lock " + lettuceSends.size() +
            ", in the frameworks (no cellrate frame) " + frameworks);
        assertTrue(redisOk > 0);
        assertTrue(waits <= cellrateWaits.size() + lettuceSends.size() + frameworks.size(),
            "the recording saw every counted wait: " + waits + " counted, " + cellrateWaits + lettuceSends + frameworks);
        assertEquals(List.of(), cellrateWaits, "event-loop threads waited in cellrate code (not Lettuce's writer lock)");
    }

    private static final List<String> WAIT_EVENTS =
        List.of("jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadSleep");
    private static final String LETTUCE_SEND_LOCK = "io.lettuce.core.protocol.SharedLock.incrementWriters";

    /** @return whether a recorded stack holds a cellrate frame (or is unknown). */
    private static boolean inCellrate(final RecordedStackTrace stack)
    {
        if (null == stack)
        {
            return true;
        }
        for (final RecordedFrame frame : stack.getFrames())
        {
            if (frame.getMethod().getType().getName().startsWith("dev.cellrate."))
            {
                return true;
            }
        }
        return false;
    }

    /** @return the innermost frame outside the JDK ({@code class.method}): the code that waited. */
    private static String waiter(final RecordedStackTrace stack)
    {
        if (null != stack)
        {
            for (final RecordedFrame frame : stack.getFrames())
            {
                final String type = frame.getMethod().getType().getName();
                if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun."))
                {
                    return type + '.' + frame.getMethod().getName();
                }
            }
        }
        return null;
    }

    /** @return the innermost frames of a recorded stack, one {@code class.method} each. */
    private static String frames(final RecordedStackTrace stack)
    {
        if (null == stack)
        {
            return "(no stack)";
        }
        final StringBuilder frames = new StringBuilder();
        for (final RecordedFrame frame : stack.getFrames())
        {
            if (frames.length() > 0)
            {
                frames.append(" < ");
            }
            frames.append(frame.getMethod().getType().getName()).append('.').append(frame.getMethod().getName());
        }
        return frames.toString();
    }

    /** 40 concurrent requests on the Redis route, 40 sequential ones alternating the Redis and local routes. */
    private static int burst(final String prefix)
    {
        final List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            final String key = prefix + "-c" + i;
            all.add(CompletableFuture.supplyAsync(() -> Http.get(port, "/gwr/x", "X-Client", key)));
        }
        int ok = 0;
        for (int i = 0; i < 40; i++)
        {
            final HttpResponse<String> r = Http.get(port, i % 2 == 0 ? "/gwr/y" : "/gw/y", "X-Client", prefix + i);
            ok += 200 == r.statusCode() ? 1 : 0;
        }
        all.forEach(CompletableFuture::join);
        return ok;
    }

    static long eventLoopWaits()
    {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        int loops = 0;
        for (final ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds()))
        {
            if (null != info && info.getThreadName().startsWith("reactor-http-"))
            {
                sum += info.getWaitedCount() + info.getBlockedCount();
                loops++;
            }
        }
        assertFalse(0 == loops, "no reactor-http threads found");
        return sum;
    }

    @Test
    void aRateLimitedRefusalIsAnswered429InWebFlux()
    {
        assertEquals("report for ann", Http.get(port, "/report/ann").body());
        assertEquals(200, Http.get(port, "/report/ann").statusCode());
        final HttpResponse<String> r = Http.get(port, "/report/ann");
        assertEquals(429, r.statusCode());
        assertEquals("60", r.headers().firstValue("retry-after").orElse(null));
        assertEquals("\"fluxuser\";r=0;t=120", r.headers().firstValue("ratelimit").orElse(null));
        assertEquals(200, Http.get(port, "/report/bob").statusCode());
    }

    @Test
    void webFilterShapesWithATimerAndChargesAfter()
    {
        int ok = 0;
        final long startNs = System.nanoTime();
        for (int i = 0; i < 6; i++)
        {
            ok += 200 == Http.get(port, "/fluxshape/x").statusCode() ? 1 : 0;
        }
        assertEquals(4, ok, "delays 0, 100, 200 and 300 ms fit max-delay 300 ms");
        assertTrue((System.nanoTime() - startNs) / 1_000_000 >= 600, "held");

        for (int i = 0; i < 4; i++)
        {
            assertEquals(200, Http.get(port, "/fluxlogin", "X-User", "ann", "pw", "secret").statusCode());
        }
        assertEquals(401, Http.get(port, "/fluxlogin", "X-User", "ann", "pw", "bad").statusCode());
        assertEquals(401, Http.get(port, "/fluxlogin", "X-User", "ann", "pw", "bad").statusCode());
        final HttpResponse<String> locked = Http.get(port, "/fluxlogin", "X-User", "ann", "pw", "secret");
        assertEquals(429, locked.statusCode());
        assertEquals("60", locked.headers().firstValue("retry-after").orElse(null));
        assertEquals(200, Http.get(port, "/fluxlogin", "X-User", "bob", "pw", "secret").statusCode());
    }

    @Test
    void principalAndForwardedKeys()
    {
        assertEquals(200, Http.get(port, "/me/x", "X-User", "ann").statusCode());
        assertEquals(200, Http.get(port, "/me/x", "X-User", "ann").statusCode());
        assertEquals(429, Http.get(port, "/me/x", "X-User", "ann").statusCode());
        assertEquals(200, Http.get(port, "/me/x", "X-User", "bob").statusCode());
        // no principal: the fallback key, shared
        assertEquals(200, Http.get(port, "/me/x").statusCode());

        assertEquals(200, Http.get(port, "/fluxfwd/x", "X-Forwarded-For", "1.1.1.1, 192.0.2.1").statusCode());
        assertEquals(429, Http.get(port, "/fluxfwd/x", "X-Forwarded-For", "9.9.9.9",
            "X-Forwarded-For", "192.0.2.1").statusCode(), "the last hop over every line");
        assertEquals(200, Http.get(port, "/fluxfwd/x", "X-Forwarded-For", "192.0.2.2").statusCode());
        assertEquals(200, Http.get(port, "/fluxfwd/x", "X-Forwarded-For", "garbage").statusCode(), "fallback key");
        assertEquals(429, Http.get(port, "/fluxfwd/x", "X-Forwarded-For", "1::2::3").statusCode(), "same fallback");
    }

    @Test
    void aPropertiesRefreshChangesAReconfigurableRateKeepingState()
    {
        assertEquals(200, Http.get(port, "/fluxlive/x", "X-Client", "spent").statusCode());
        assertEquals(200, Http.get(port, "/fluxlive/x", "X-Client", "spent").statusCode());
        assertEquals(429, Http.get(port, "/fluxlive/x", "X-Client", "spent").statusCode());
        context.getEnvironment().getPropertySources().addFirst(new org.springframework.core.env.MapPropertySource(
            "refreshed", Map.of("cellrate.limits.fluxlive.rate", "60")));
        context.publishEvent(new org.springframework.cloud.context.environment.EnvironmentChangeEvent(
            context, java.util.Set.of("cellrate.limits.fluxlive.rate")));
        final HttpResponse<String> kept = Http.get(port, "/fluxlive/x", "X-Client", "spent");
        assertEquals(429, kept.statusCode());
        assertEquals("\"fluxlive\";q=2;w=2", kept.headers().firstValue("ratelimit-policy").orElse(null));
        assertEquals("119", kept.headers().firstValue("retry-after").orElse(null), "the debt is kept");
        assertEquals(1_000_000_000L, registry.get("fluxlive").limit().emissionIntervalNs());
    }
}
