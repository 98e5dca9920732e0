package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many clients on one key of one server, on server time: threads of this JVM (each with its own connection and
 * limiter, as separate processes would have) and a second JVM. The permits admitted over the run stay within the
 * GCRA bound of the server's clock (none over), and every admission's increment is in the final TAT (none lost).
 */
class ConcurrencyTest
{
    private static final long INTERVAL_NS = 20_000_000;       // 50/s: clients on a loaded machine saturate it
    private static final long TOLERANCE_NS = 9 * INTERVAL_NS;  // burst 10
    private static RedisFixture redis;

    @BeforeAll
    static void start() throws Exception
    {
        redis = new RedisFixture();
    }

    @AfterAll
    static void stop() throws Exception
    {
        redis.close();
    }

    static long serverTimeUs(final StatefulRedisConnection<byte[], byte[]> connection)
    {
        final List<byte[]> time = connection.sync().time();
        return Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII)) * 1_000_000L +
            Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII));
    }

    /**
     * Decide on one key until the server's clock passes the deadline.
     *
     * @return the permits admitted and the server time (us) read after the last of them.
     */
    static long[] hammer(
        final RedisRateLimiter limiter, final String key, final long deadlineUs,
        final StatefulRedisConnection<byte[], byte[]> connection)
    {
        long admitted = 0;
        int i = 0;
        while (true)
        {
            if ((i++ & 7) == 0)
            {
                final long nowUs = serverTimeUs(connection);
                if (nowUs >= deadlineUs)
                {
                    return new long[] {admitted, nowUs};
                }
            }
            final long code = limiter.tryAcquire(key, 1);
            if (Result.ADMITTED == code)
            {
                admitted++;
            }
            else if (code <= 0)
            {
                throw new IllegalStateException("unexpected code " + code);
            }
        }
    }

    @Test
    void threadsAndASecondJvmNeverExceedTheBoundOnServerTime() throws Exception
    {
        final String prefix = "conc:" + System.nanoTime() + ":";
        final String key = "hot";
        final Limit limit = Limit.ofGcra(INTERVAL_NS, TOLERANCE_NS);
        final int threads = 3;
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong lastUs = new AtomicLong();
        final List<Thread> workers = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        final java.util.concurrent.CompletableFuture<Long> deadline = new java.util.concurrent.CompletableFuture<>();
        for (int t = 0; t < threads; t++)
        {
            // each thread connected and warmed before the run starts, as a separate process would be
            final StatefulRedisConnection<byte[], byte[]> connection = RedisServer.connect(redis.client);
            final RedisRateLimiter limiter = RedisRateLimiter.builder(connection, limit, FailPolicy.CLOSED)
                .prefix(prefix).timeoutNs(TimeUnit.SECONDS.toNanos(5)).extraTtlMs(60_000).build();
            serverTimeUs(connection);
            workers.add(new Thread(() ->
            {
                try (connection)
                {
                    final long[] result = hammer(limiter, key, deadline.join(), connection);
                    admitted.addAndGet(result[0]);
                    lastUs.accumulateAndGet(result[1], Math::max);
                    assertEquals(0, limiter.fallbacks());
                    limiter.close();
                }
                catch (final Throwable ex)
                {
                    synchronized (errors)
                    {
                        errors.add(ex);
                    }
                }
            }));
        }
        for (final Thread worker : workers)
        {
            worker.start();
        }
        final String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        final Process second = new ProcessBuilder(
            ProcessHandle.current().info().command().orElse("java"),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", classpath, HammerClient.class.getName(),
            Integer.toString(redis.server.port), prefix, key, Long.toString(INTERVAL_NS), Long.toString(TOLERANCE_NS))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("ready", out.readLine(), "second JVM connected");
        final long startUs = serverTimeUs(redis.connection);
        final long deadlineUs = startUs + 1_500_000;
        second.getOutputStream().write((deadlineUs + "\n").getBytes(StandardCharsets.US_ASCII));
        second.getOutputStream().flush();
        deadline.complete(deadlineUs);
        for (final Thread worker : workers)
        {
            worker.join();
        }
        assertTrue(second.waitFor(60, TimeUnit.SECONDS), "second JVM finished");
        final List<String> lines = new ArrayList<>();
        for (String line; (line = out.readLine()) != null; )
        {
            lines.add(line);
        }
        out.close();
        assertEquals(0, second.exitValue(), "second JVM: " + lines);
        assertTrue(errors.isEmpty(), errors::toString);
        final long fromSecond = Long.parseLong(lines.get(0));
        assertEquals("fallbacks 0", lines.get(1));
        final long endUs = Math.max(lastUs.get(), Long.parseLong(lines.get(2)));
        final long total = admitted.get() + fromSecond;

        // None over: every admission happened on the server's clock within [startUs, endUs].
        final long intervalUs = INTERVAL_NS / 1000;
        final long ceilingUs = (TOLERANCE_NS + INTERVAL_NS) / 1000;
        final long boundPermits = (ceilingUs + endUs - startUs) / intervalUs;
        assertTrue(total <= boundPermits, total + " admitted > GCRA bound " + boundPermits);
        assertTrue(fromSecond > 0 && admitted.get() > 0, "both JVMs got permits: " + admitted + " / " + fromSecond);
        assertTrue(total >= boundPermits / 2, "the key was saturated: " + total + " of " + boundPermits);

        // None lost: the TAT grew by at least T per admitted permit (a lost update would leave it short).
        try (StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final String tat = admin.sync().get(prefix + key);
            final long tatUs = Long.parseLong(tat);
            assertTrue(tatUs - startUs >= total * intervalUs,
                "TAT advanced " + (tatUs - startUs) + " us for " + total + " permits of " + intervalUs + " us");
            assertTrue(tatUs <= endUs + ceilingUs, "TAT beyond now + ceiling");
        }
        System.out.printf("concurrency: %d threads + 1 JVM, %d admitted (%d by the second JVM) in %d us, bound %d%n",
            threads, total, fromSecond, endUs - startUs, boundPermits);
    }
}
