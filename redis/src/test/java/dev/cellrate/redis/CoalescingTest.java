package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The server-time decisions of concurrent callers leave together: while Redis is stalled ({@code DEBUG SLEEP}) the
 * decisions of 64 synchronous callers, or of 64 asynchronous calls from one thread, gather into a few script calls,
 * and each caller gets its own key's answer and {@link Decision} when Redis wakes (a poisoned key answers its own
 * key error, a flushed script cache one EVAL per combined call at most). Each caller keeps its own deadline, an
 * asynchronous call is answered exactly once, and a caller that gives up (interrupted) while its decision still
 * gathers answers by the fail policy and its decision is never sent.
 */
class CoalescingTest
{
    private static final int CALLERS = 64;
    private static final long BURST = 10;
    private static final int POISONED = 5;
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L;

    @Test
    void sixtyFourCallersShareAFewScriptCallsAndEachGetsItsOwnAnswer() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisClient client = redis.server.client();
            final AtomicInteger scripts = count(client, CommandType.EVALSHA);
            final AtomicInteger evals = count(client, CommandType.EVAL);
            try (StatefulRedisConnection<byte[], byte[]> shared = client.connect(ByteArrayCodec.INSTANCE))
            {
                final RedisRateLimiter limiter = RedisRateLimiter.builder(shared, Limit.of(1, 1, TimeUnit.HOURS, BURST),
                    FailPolicy.CLOSED).prefix("co:").timeoutNs(TimeUnit.SECONDS.toNanos(10)).build();
                for (int i = 0; i < CALLERS; i++) // caller i's key has i % 11 permits spent already
                {
                    final long spent = i % (BURST + 1);
                    if (spent > 0 && POISONED != i)
                    {
                        assertEquals(Result.ADMITTED, limiter.tryAcquire("k" + i, spent));
                    }
                }
                admin.sync().hset("co:k" + POISONED, "f", "v"); // one caller's key holds a hash
                admin.sync().scriptFlush(); // the first combined calls meet NOSCRIPT and go again by EVAL
                final int before = scripts.get();
                final int evalsBefore = evals.get();
                final long tripsBefore = limiter.roundTrips();

                // Redis sleeps long enough that a starved test thread (2 busy cores) still finds the first calls
                // in flight: the test waits on what it counts, not on fixed pauses.
                FaultTest.debugSleep(admin, "5");
                Thread.sleep(100);
                final AtomicLongArray codes = new AtomicLongArray(CALLERS);
                final AtomicLongArray remaining = new AtomicLongArray(CALLERS);
                final List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++)
                {
                    final int caller = i;
                    final Thread t = new Thread(() ->
                    {
                        final Decision decision = new Decision();
                        codes.set(caller, limiter.tryAcquire("k" + caller, 1, decision));
                        remaining.set(caller, decision.remaining());
                    });
                    callers.add(t);
                    t.start();
                }
                for (final Thread t : callers)
                {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                }
                final int calls = scripts.get() - before;
                assertTrue(calls <= Coalescer.MAX_IN_FLIGHT + 2, "64 decisions in " + calls + " script calls");
                final int reloads = evals.get() - evalsBefore;
                assertTrue(reloads >= 1 && reloads <= calls, reloads + " EVALs: at most one per combined call");
                assertEquals(reloads, limiter.scriptReloads());
                assertEquals(calls, limiter.roundTrips() - tripsBefore, "one round trip per script call");
                for (int i = 0; i < CALLERS; i++)
                {
                    final long spent = i % (BURST + 1);
                    if (POISONED == i)
                    {
                        assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, codes.get(i), "the poisoned key alone");
                    }
                    else if (spent < BURST)
                    {
                        assertEquals(Result.ADMITTED, codes.get(i), "caller " + i);
                        assertEquals(BURST - spent - 1, remaining.get(i), "caller " + i + "'s own key");
                    }
                    else
                    {
                        assertTrue(codes.get(i) > 0, "caller " + i + " on a spent key: a retry-after, " + codes.get(i));
                        assertEquals(0, remaining.get(i), "caller " + i);
                    }
                }
                assertEquals(0, limiter.fallbacks());
                assertEquals(1, limiter.keyErrors());
                limiter.close();
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    @Test
    void callersOnTheirOwnTimesAndOnTheServersShareACallAndEachIsDecidedAtItsOwnTime() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisClient client = redis.server.client();
            final AtomicInteger scripts = count(client, CommandType.EVALSHA);
            try (StatefulRedisConnection<byte[], byte[]> shared = client.connect(ByteArrayCodec.INSTANCE))
            {
                final Limit limit = Limit.of(1, 1, TimeUnit.SECONDS, BURST); // T = 1 s: a caller's time moves its answer
                final RedisRateLimiter limiter = RedisRateLimiter.builder(shared, limit, FailPolicy.CLOSED)
                    .prefix("mix:").timeoutNs(TimeUnit.SECONDS.toNanos(10)).build();
                final KeyedRateLimiter engine = KeyedRateLimiter.builder(limit).expectedKeys(1024).build();
                final long[] callerNs = new long[CALLERS];
                for (int i = 0; i < CALLERS; i++) // every key spent at EPOCH_NS; even callers come back at their own time
                {
                    final String key = "k" + i;
                    assertEquals(engine.tryAcquire(key, BURST, EPOCH_NS), limiter.tryAcquire(key, BURST, EPOCH_NS));
                    callerNs[i] = EPOCH_NS + i * 250_000_000L; // 0 to 15.75 s later: 0 to 10 permits back
                }
                final int before = scripts.get();
                // Redis sleeps long enough that a starved test thread (2 busy cores) still finds the first calls
                // in flight: the test waits on what it counts, not on fixed pauses.
                FaultTest.debugSleep(admin, "5");
                Thread.sleep(100);
                final Decision[] decisions = new Decision[CALLERS];
                final AtomicLongArray codes = new AtomicLongArray(CALLERS);
                final List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++)
                {
                    final int caller = i;
                    decisions[i] = new Decision();
                    final Thread t = new Thread(() -> codes.set(caller, 0 == caller % 2 ?
                        limiter.tryAcquire("k" + caller, 2, callerNs[caller], decisions[caller]) :
                        limiter.tryAcquire("s" + caller, 1, decisions[caller])));
                    callers.add(t);
                    t.start();
                }
                for (final Thread t : callers)
                {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                }
                final int calls = scripts.get() - before;
                assertTrue(calls <= Coalescer.MAX_IN_FLIGHT + 2, "64 decisions in " + calls + " script calls");
                final Decision expected = new Decision();
                for (int i = 0; i < CALLERS; i++)
                {
                    if (0 == i % 2)
                    {
                        final long code = engine.tryAcquire("k" + i, 2, callerNs[i], expected);
                        assertEquals(code, codes.get(i), "caller " + i + " at its own time");
                        assertEquals(expected.remaining(), decisions[i].remaining(), "caller " + i);
                        assertEquals(expected.resetAfterNs(), decisions[i].resetAfterNs(), "caller " + i);
                        assertEquals(expected.retryAfterNs(), decisions[i].retryAfterNs(), "caller " + i);
                    }
                    else
                    {
                        assertEquals(Result.ADMITTED, codes.get(i), "caller " + i + " on the server's time");
                        assertEquals(BURST - 1, decisions[i].remaining(), "caller " + i);
                    }
                }
                assertEquals(0, limiter.fallbacks());
                limiter.close();
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    @Test
    void sixtyFourAsynchronousCallsFromOneThreadShareAFewScriptCalls() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisClient client = redis.server.client();
            final AtomicInteger scripts = count(client, CommandType.EVALSHA);
            try (StatefulRedisConnection<byte[], byte[]> shared = client.connect(ByteArrayCodec.INSTANCE))
            {
                final RedisRateLimiter limiter = RedisRateLimiter.builder(shared, Limit.of(1, 1, TimeUnit.HOURS, BURST),
                    FailPolicy.CLOSED).prefix("as:").timeoutNs(TimeUnit.SECONDS.toNanos(10)).build();
                for (int i = 0; i < CALLERS; i++)
                {
                    final long spent = i % BURST;
                    if (spent > 0)
                    {
                        assertEquals(Result.ADMITTED, limiter.tryAcquire("k" + i, spent));
                    }
                }
                final int before = scripts.get();
                // Redis sleeps long enough that a starved test thread (2 busy cores) still finds the first calls
                // in flight: the test waits on what it counts, not on fixed pauses.
                FaultTest.debugSleep(admin, "5");
                Thread.sleep(100);
                final Decision[] decisions = new Decision[CALLERS];
                final AtomicLongArray codes = new AtomicLongArray(CALLERS);
                final AtomicIntegerArray calledBack = new AtomicIntegerArray(CALLERS);
                final CountDownLatch all = new CountDownLatch(CALLERS);
                for (int i = 0; i < CALLERS; i++)
                {
                    final int caller = i;
                    decisions[i] = new Decision();
                    limiter.tryAcquireAsync("k" + i, 1, decisions[i], code ->
                    {
                        codes.set(caller, code);
                        calledBack.incrementAndGet(caller);
                        all.countDown();
                    });
                }
                assertTrue(all.await(20, TimeUnit.SECONDS));
                final int calls = scripts.get() - before;
                assertTrue(calls <= Coalescer.MAX_IN_FLIGHT + 2, "64 decisions in " + calls + " script calls");
                for (int i = 0; i < CALLERS; i++)
                {
                    assertEquals(Result.ADMITTED, codes.get(i), "call " + i);
                    assertEquals(BURST - i % BURST - 1, decisions[i].remaining(), "call " + i + "'s own key");
                    assertEquals(1, calledBack.get(i), "call " + i);
                }
                limiter.close();
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    @Test
    void asynchronousCallsPastTheirTimeoutAreAnsweredOnceByThePolicy() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisRateLimiter limiter = RedisRateLimiter.builder(redis.connection, Limit.of(1, 1, TimeUnit.HOURS, BURST),
                FailPolicy.OPEN).prefix("at:").timeoutNs(TimeUnit.MILLISECONDS.toNanos(300))
                .circuitBreaker(1000, 1000, 100, TimeUnit.SECONDS.toNanos(1)).build();
            FaultTest.debugSleep(admin, "1.5");
            Thread.sleep(100);
            final AtomicLongArray codes = new AtomicLongArray(CALLERS);
            final AtomicIntegerArray calledBack = new AtomicIntegerArray(CALLERS);
            final CountDownLatch all = new CountDownLatch(CALLERS);
            for (int i = 0; i < CALLERS; i++)
            {
                final int caller = i;
                limiter.tryAcquireAsync("k" + i, 1, null, code ->
                {
                    codes.set(caller, code);
                    calledBack.incrementAndGet(caller);
                    all.countDown();
                });
            }
            assertTrue(all.await(1_200, TimeUnit.MILLISECONDS), "every call answered at its timeout, before Redis woke");
            Thread.sleep(2_000); // Redis wakes and answers the calls that were in flight: too late, ignored
            for (int i = 0; i < CALLERS; i++)
            {
                assertEquals(RedisRateLimiter.ADMITTED_FAIL_OPEN, codes.get(i), "call " + i);
                assertEquals(1, calledBack.get(i), "call " + i + " answered exactly once");
            }
            assertEquals(CALLERS, limiter.fallbacks(FallbackCause.TIMEOUT));
            limiter.close();
        }
    }

    @Test
    void callersPastTheirDeadlineAnswerByThePolicyWhileRedisSleeps() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisRateLimiter limiter = RedisRateLimiter.builder(redis.connection, Limit.of(1, 1, TimeUnit.HOURS, BURST),
                FailPolicy.CLOSED).prefix("late:").timeoutNs(TimeUnit.MILLISECONDS.toNanos(300))
                .circuitBreaker(1000, 1000, 100, TimeUnit.SECONDS.toNanos(1)).build();
            FaultTest.debugSleep(admin, "2");
            Thread.sleep(100);
            final AtomicLongArray codes = new AtomicLongArray(CALLERS);
            final AtomicLongArray waitedNs = new AtomicLongArray(CALLERS);
            final List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++)
            {
                final int caller = i;
                final Thread t = new Thread(() ->
                {
                    final long startNs = System.nanoTime();
                    codes.set(caller, limiter.tryAcquire("k" + caller, 1));
                    waitedNs.set(caller, System.nanoTime() - startNs);
                });
                callers.add(t);
                t.start();
            }
            for (final Thread t : callers)
            {
                t.join(TimeUnit.SECONDS.toMillis(20));
            }
            for (int i = 0; i < CALLERS; i++)
            {
                assertEquals(RedisRateLimiter.REJECTED_FAIL_CLOSED, codes.get(i), "caller " + i);
                assertTrue(waitedNs.get(i) < TimeUnit.MILLISECONDS.toNanos(1_200),
                    "caller " + i + " waited its own timeout, not for Redis: " + waitedNs.get(i) / 1_000_000 + " ms");
            }
            assertEquals(CALLERS, limiter.fallbacks(FallbackCause.TIMEOUT));
            assertEquals(0, limiter.fallbacks(FallbackCause.ERROR));
            limiter.close();
        }
    }

    @Test
    void aCallerThatGivesUpWhileItsDecisionGathersIsNeverSent() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisClient client = redis.server.client();
            final AtomicInteger scripts = count(client, CommandType.EVALSHA);
            try (StatefulRedisConnection<byte[], byte[]> shared = client.connect(ByteArrayCodec.INSTANCE))
            {
                final RedisRateLimiter limiter = RedisRateLimiter.builder(shared, Limit.of(1, 1, TimeUnit.HOURS, BURST),
                    FailPolicy.CLOSED).prefix("gone:").timeoutNs(TimeUnit.SECONDS.toNanos(10)).build();
                final int before = scripts.get();
                // Redis sleeps long enough that a starved test thread (2 busy cores) still finds the first calls
                // in flight: the test waits on what it counts, not on fixed pauses.
                FaultTest.debugSleep(admin, "5");
                Thread.sleep(100);
                final AtomicLongArray codes = new AtomicLongArray(CALLERS);
                final List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++)
                {
                    final int caller = i;
                    final Thread t = new Thread(() -> codes.set(caller, limiter.tryAcquire("k" + caller, 1)));
                    callers.add(t);
                    t.start();
                    if (caller < Coalescer.MAX_IN_FLIGHT)
                    {
                        awaitCount(scripts, before + caller + 1); // each first caller takes a place in flight
                    }
                }
                Thread.sleep(200); // the others gather behind them
                assertEquals(Coalescer.MAX_IN_FLIGHT, scripts.get() - before, "the calls in flight while Redis sleeps");
                for (int i = Coalescer.MAX_IN_FLIGHT; i < CALLERS; i++)
                {
                    callers.get(i).interrupt();
                }
                for (final Thread t : callers)
                {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                }
                for (int i = 0; i < CALLERS; i++)
                {
                    assertEquals(i < Coalescer.MAX_IN_FLIGHT ? Result.ADMITTED : RedisRateLimiter.REJECTED_FAIL_CLOSED,
                        codes.get(i), "caller " + i);
                }
                assertEquals(CALLERS - Coalescer.MAX_IN_FLIGHT, limiter.fallbacks(FallbackCause.ERROR));
                Thread.sleep(200);
                assertEquals(Coalescer.MAX_IN_FLIGHT, scripts.get() - before, "nothing sent for the callers that left");
                assertEquals(Coalescer.MAX_IN_FLIGHT, admin.sync().keys("gone:*").size(), "only their keys charged");
                limiter.close();
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    private static void awaitCount(final AtomicInteger counter, final int atLeast) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (counter.get() < atLeast && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(5);
        }
        assertEquals(atLeast, counter.get(), "calls sent");
    }

    private static AtomicInteger count(final RedisClient client, final CommandType type)
    {
        final AtomicInteger scripts = new AtomicInteger();
        client.addListener(new CommandListener()
        {
            public void commandStarted(final CommandStartedEvent event)
            {
                if (type == event.getCommand().getType())
                {
                    scripts.incrementAndGet();
                }
            }
        });
        return scripts;
    }
}
