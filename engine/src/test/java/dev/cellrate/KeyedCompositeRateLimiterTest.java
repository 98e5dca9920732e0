package dev.cellrate;

import dev.cellrate.composite.CompositeRateLimiterTest;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * User AND tenant AND global over three keyed tables, against an independent check-all-then-charge-all model
 * (single-threaded, so every refund succeeds and the composite must match the model exactly), and with the
 * legs' own limiters charging the same keys in between.
 */
class KeyedCompositeRateLimiterTest
{
    @Test
    void userTenantGlobalMatchesTheModel()
    {
        final Limit[] limits = {Limit.perSecond(5, 3), Limit.perSecond(20, 10), Limit.perSecond(50, 25)};
        final KeyedRateLimiter users = KeyedRateLimiter.builder(limits[0]).slotCount(256).shardCount(1).build();
        final KeyedRateLimiter tenants = KeyedRateLimiter.builder(limits[1]).slotCount(64).shardCount(1).build();
        final KeyedRateLimiter global = KeyedRateLimiter.builder(limits[2]).slotCount(16).shardCount(1).build();
        final KeyedCompositeRateLimiter composite = new KeyedCompositeRateLimiter(users, tenants, global);
        // model cells: users 0..11, tenants 12..14, global 15
        final CompositeRateLimiterTest.Model model = new CompositeRateLimiterTest.Model(16);
        final int[] modelCells = new int[3];
        final long[] keys = new long[3];
        final SplittableRandom random = new SplittableRandom(8);
        long nowNs = 1_000_000_000_000L;
        long admitted = 0;
        for (int i = 0; i < 30_000; i++)
        {
            nowNs += random.nextLong(0, 30_000_000L);
            final int user = random.nextInt(12);
            keys[0] = 1000 + user;
            keys[1] = -7 - user % 3;
            keys[2] = 0;
            modelCells[0] = user;
            modelCells[1] = 12 + user % 3;
            modelCells[2] = 15;
            final long permits = random.nextInt(6) == 0 ? 2 : 1;
            if (random.nextInt(10) == 0)
            {
                // a plain request on the user's own limiter only: it is a kept charge for both sides
                final boolean expected = model.offer(new Limit[] {limits[0]}, new int[] {user}, 1, nowNs);
                assertEquals(expected, Result.isAdmitted(users.tryAcquire(keys[0], 1, nowNs)), "plain " + i);
                continue;
            }
            final boolean expected = model.offer(limits, modelCells, permits, nowNs);
            assertEquals(expected, Result.isAdmitted(composite.tryAcquire(keys, permits, nowNs)), "request " + i);
            admitted += expected ? 1 : 0;
        }
        assertTrue(admitted > 3000 && admitted < 27_000, "admitted " + admitted);
        assertEquals(0, composite.leakedRefunds());
    }

    @Test
    void tableFullFailsClosedAfterRefundingEarlierLegs()
    {
        final KeyedRateLimiter users = KeyedRateLimiter.builder(Limit.perSecond(1, 1)).slotCount(1024).shardCount(1).build();
        final KeyedRateLimiter tiny = KeyedRateLimiter.builder(Limit.perSecond(1, 1)).slotCount(16).shardCount(1)
            .probeBound(1).build();
        final KeyedCompositeRateLimiter composite = new KeyedCompositeRateLimiter(users, tiny);
        final long[] keys = new long[2];
        long tableFull = 0;
        for (int k = 0; k < 64; k++)
        {
            keys[0] = k;
            keys[1] = k;
            final long code = composite.tryAcquire(keys, 1, 5);
            if (Result.TABLE_FULL == code)
            {
                tableFull++;
                // the user's charge was refunded: the user still has its one permit
                assertEquals(Result.ADMITTED, users.tryAcquire(k, 1, 5));
            }
            else
            {
                assertEquals(Result.ADMITTED, code);
            }
        }
        assertTrue(tableFull > 0, "probe bound 1 on 16 slots must fill");
        assertEquals(Result.NEVER, composite.tryAcquire(new long[1], 1, 5));
        assertEquals(Result.NEVER, composite.tryAcquire(keys, 2, 5));
        assertThrows(IllegalArgumentException.class, () -> new KeyedCompositeRateLimiter());
        assertEquals("legs[1] must not be null", assertThrows(IllegalArgumentException.class,
            () -> new KeyedCompositeRateLimiter(users, null)).getMessage());
    }
}
