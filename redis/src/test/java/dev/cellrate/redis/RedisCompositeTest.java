package dev.cellrate.redis;

import dev.cellrate.Limit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RedisComposite} against a real redis-server: legs of different limits decided all or nothing in one
 * call, against a model of counts (limits per hour, so the time the calls take moves nothing).
 */
final class RedisCompositeTest
{
    private static final MicrosLimit TEN_PER_HOUR = MicrosLimit.of(Limit.of(10, 1, TimeUnit.HOURS, 10));
    private static final MicrosLimit THREE_PER_HOUR = MicrosLimit.of(Limit.of(3, 1, TimeUnit.HOURS, 3));

    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> connection;

    @BeforeAll
    static void start() throws Exception
    {
        server = RedisServer.start();
        client = server.client();
        connection = RedisServer.connect(client);
    }

    @AfterAll
    static void stop() throws Exception
    {
        connection.close();
        client.shutdown();
        server.close();
    }

    private static byte[] key(final String name)
    {
        return ("composite-test:" + name).getBytes(StandardCharsets.UTF_8);
    }

    private static RedisComposite.Legs call(final RedisComposite composite, final RedisComposite.Legs legs)
        throws Exception
    {
        final CompletableFuture<RedisComposite.Legs> done = new CompletableFuture<>();
        composite.decideAsync(legs, done::complete);
        return done.get(10, TimeUnit.SECONDS);
    }

    @Test
    void legsOfDifferentLimitsAreChargedAllOrNothingAsAModelOfCountsSays() throws Exception
    {
        final RedisComposite composite = new RedisComposite(connection, TimeUnit.SECONDS.toNanos(5), 1000);
        final String[] names = { "m0", "m1", "m2" };
        final MicrosLimit[] limits = { TEN_PER_HOUR, THREE_PER_HOUR, TEN_PER_HOUR };
        final long[] used = new long[names.length];
        final SplittableRandom random = new SplittableRandom(11);
        for (int n = 0; n < 60; n++)
        {
            final RedisComposite.Legs legs = new RedisComposite.Legs();
            final int[] which = new int[1 + random.nextInt(3)];
            final long[] permits = new long[which.length];
            final long[] before = used.clone();
            final long[] after = used.clone();
            boolean all = true;
            for (int l = 0; l < which.length; l++)
            {
                which[l] = random.nextInt(names.length);
                permits[l] = 1 + random.nextInt(3);
                legs.add(key(names[which[l]]), limits[which[l]], permits[l], RedisComposite.CHARGE);
                after[which[l]] += permits[l];
                all &= after[which[l]] <= limits[which[l]].burst();
            }
            call(composite, legs);
            assertNull(legs.cause());
            assertEquals(all, legs.allConform(), "call " + n);
            if (all)
            {
                System.arraycopy(after, 0, used, 0, used.length);
            }
            final long[] seen = before.clone();
            for (int l = 0; l < which.length; l++)
            {
                seen[which[l]] += permits[l]; // a leg sees the legs before it on its key, and itself
                final long usedAtLeg = all ? seen[which[l]] : before[which[l]];
                assertEquals(limits[which[l]].burst() - usedAtLeg, legs.remaining(l), "leg " + l + " of call " + n);
            }
        }
        assertEquals(60, composite.roundTrips());
    }

    @Test
    void checkAloneAndRefundLegs() throws Exception
    {
        final RedisComposite composite = new RedisComposite(connection, TimeUnit.SECONDS.toNanos(5), 1000);
        RedisComposite.Legs legs = new RedisComposite.Legs(4);
        legs.add(key("c-small"), THREE_PER_HOUR, 3, RedisComposite.CHARGE);
        call(composite, legs);
        assertTrue(legs.allConform());

        legs = new RedisComposite.Legs(4);
        legs.add(key("c-big"), TEN_PER_HOUR, 1, RedisComposite.CHARGE);
        legs.add(key("c-small"), THREE_PER_HOUR, 1, RedisComposite.CHECK);
        legs.add(key("c-shadow"), THREE_PER_HOUR, 2, RedisComposite.ALONE);
        call(composite, legs);
        assertFalse(legs.allConform(), "the check finds no permit left");
        assertFalse(legs.conforms(1));
        assertEquals(10, legs.remaining(0), "the charge leg was not charged");
        assertTrue(legs.conforms(2), "an alone leg is charged whatever the others");
        assertEquals(1, legs.remaining(2));

        legs = new RedisComposite.Legs(2);
        legs.add(key("c-small"), THREE_PER_HOUR, 2, RedisComposite.REFUND);
        legs.add(key("c-fresh"), THREE_PER_HOUR, 100, RedisComposite.REFUND);
        call(composite, legs);
        assertEquals(2, legs.remaining(0), "2 given back");
        assertEquals(3, legs.remaining(1), "a full bucket gets no credit");
    }

    @Test
    void aKeyHoldingSomethingElseRefusesItsLegAndChangesNothing() throws Exception
    {
        connection.sync().rpush(key("k-list"), "x".getBytes(StandardCharsets.UTF_8));
        final RedisComposite composite = new RedisComposite(connection, TimeUnit.SECONDS.toNanos(5), 1000);
        final RedisComposite.Legs legs = new RedisComposite.Legs(2);
        legs.add(key("k-ok"), TEN_PER_HOUR, 1, RedisComposite.CHARGE);
        legs.add(key("k-list"), TEN_PER_HOUR, 1, RedisComposite.CHARGE);
        call(composite, legs);
        assertNull(legs.cause());
        assertTrue(legs.keyError(1));
        assertFalse(legs.allConform());
        assertEquals(10, legs.remaining(0));
        assertEquals(1L, connection.sync().llen(key("k-list")));
    }

    @Test
    void aSlowServerIsATimeout() throws Exception
    {
        final RedisComposite composite = new RedisComposite(connection, TimeUnit.MILLISECONDS.toNanos(50), 1000);
        final RedisClient other = server.client();
        try (StatefulRedisConnection<String, String> admin = other.connect())
        {
            FaultTest.debugSleep(admin, "0.5");
            Thread.sleep(50);
            final RedisComposite.Legs legs = new RedisComposite.Legs(1);
            legs.add(key("slow"), TEN_PER_HOUR, 1, RedisComposite.CHARGE);
            call(composite, legs);
            assertEquals(FallbackCause.TIMEOUT, legs.cause());
            assertEquals(1, composite.failures());
        }
        finally
        {
            other.shutdown();
        }
    }
}
