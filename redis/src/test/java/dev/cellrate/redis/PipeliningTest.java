package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Concurrent callers on one connection are not serialised by the limiter: while Redis is stalled (DEBUG SLEEP),
 * the commands of 64 synchronous callers with one command each ({@code coalesceCalls(false)}), and of 64
 * asynchronous calls from one thread, all leave for Redis together, and all are answered when it wakes. A lock held
 * across a round trip would let one command out. (With coalescing, the default, concurrent synchronous callers
 * share a few script calls instead: {@link CoalescingTest}.)
 */
class PipeliningTest
{
    private static final int CALLERS = 64;

    @Test
    void sixtyFourCallersHaveSixtyFourCommandsInFlightOnOneConnection() throws Exception
    {
        try (RedisFixture redis = new RedisFixture();
             StatefulRedisConnection<String, String> admin = redis.client.connect(StringCodec.UTF8))
        {
            final RedisClient client = redis.server.client();
            final AtomicInteger scripts = new AtomicInteger();
            client.addListener(new CommandListener()
            {
                public void commandStarted(final CommandStartedEvent event)
                {
                    if (CommandType.EVALSHA == event.getCommand().getType())
                    {
                        scripts.incrementAndGet();
                    }
                }
            });
            try (StatefulRedisConnection<byte[], byte[]> shared = client.connect(ByteArrayCodec.INSTANCE))
            {
                final RedisRateLimiter limiter = RedisRateLimiter.builder(shared, Limit.perSecond(1000, 10), FailPolicy.CLOSED)
                    .prefix("pipe:" + System.nanoTime() + ":").timeoutNs(TimeUnit.SECONDS.toNanos(10)).coalesceCalls(false)
                    .build();
                final int warmUp = scripts.get();

                FaultTest.debugSleep(admin, "1.5");
                Thread.sleep(100);
                final AtomicLongArray codes = new AtomicLongArray(CALLERS);
                final List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++)
                {
                    final int caller = i;
                    final Thread t = new Thread(() -> codes.set(caller, limiter.tryAcquire("k" + caller, 1)));
                    callers.add(t);
                    t.start();
                }
                final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
                while (scripts.get() - warmUp < CALLERS && System.nanoTime() < deadlineNs)
                {
                    Thread.sleep(5);
                }
                assertEquals(CALLERS, scripts.get() - warmUp, "every caller's command left while Redis slept");
                assertEquals(0, limiter.roundTrips(), "and none was answered yet");

                final CompletableFuture<?>[] async = new CompletableFuture<?>[CALLERS];
                final long startNs = System.nanoTime();
                for (int i = 0; i < CALLERS; i++)
                {
                    final CompletableFuture<Long> done = new CompletableFuture<>();
                    limiter.tryAcquireAsync("a" + i, 1, null, done::complete);
                    async[i] = done;
                }
                assertTrue(System.nanoTime() - startNs < TimeUnit.MILLISECONDS.toNanos(300), "64 async calls did not wait");
                while (scripts.get() - warmUp < 2 * CALLERS && System.nanoTime() < deadlineNs + TimeUnit.MILLISECONDS.toNanos(300))
                {
                    Thread.sleep(5);
                }
                assertEquals(2 * CALLERS, scripts.get() - warmUp, "the async commands left too");

                for (final Thread t : callers)
                {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                }
                CompletableFuture.allOf(async).get(20, TimeUnit.SECONDS);
                for (int i = 0; i < CALLERS; i++)
                {
                    assertEquals(Result.ADMITTED, codes.get(i), "caller " + i);
                    assertEquals(Result.ADMITTED, async[i].get());
                }
                assertEquals(2 * CALLERS, limiter.roundTrips());
                assertEquals(0, limiter.fallbacks());
                limiter.close();
            }
            finally
            {
                client.shutdown();
            }
        }
    }
}
