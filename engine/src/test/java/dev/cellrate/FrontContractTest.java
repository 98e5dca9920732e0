package dev.cellrate;

import dev.cellrate.composite.TestComposites;
import dev.cellrate.layout.CellArray;
import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one front contract: a lone {@code long} is permits, read against the injected clock, on every front;
 * and no public method of the engine takes a lone {@code long} that means time.
 */
final class FrontContractTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aLoneLongIsPermitsOnEverySingleFront()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000 * SECOND_NS);
        final Limit limit = Limit.perSecond(10, 5);
        final Limiter[] fronts = {
            new RateLimiter(limit, clock),
            new SingleThreadedRateLimiter(limit, clock),
            new PayLaterRateLimiter(limit, 5, clock),
            dev.cellrate.window.TestWindows.fixed(5, SECOND_NS, CellArray.allocate(1), 0, clock),
            dev.cellrate.window.TestWindows.slidingCounter(5, SECOND_NS, CellArray.allocate(1), 0, clock),
            new SlidingLogLimiter(5, SECOND_NS, clock),
            TestComposites.composite(CellArray.allocate(1), new Limit[]{limit}, new int[]{0}, clock),
        };
        for (final Limiter front : fronts)
        {
            final String name = front.getClass().getSimpleName();
            assertEquals(Result.ADMITTED, front.tryAcquire(5), name + ": tryAcquire(5) takes five permits");
            assertTrue(front.tryAcquire(1) > 0, name + ": the five permits were charged at the clock's time");
            assertTrue(front.tryAcquire() > 0, name);
            final Decision decision = new Decision();
            assertTrue(front.tryAcquire(1, decision) > 0, name);
            assertFalse(decision.admitted(), name);
        }
    }

    @Test
    void warmUpTakesPermitsByTheClock()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(0);
        final WarmingUpRateLimiter limiter = WarmingUpRateLimiter.guava(10, 1, TimeUnit.SECONDS, 0, clock);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(3));
        assertTrue(limiter.tryAcquire(1) > 0, "Guava's next caller pays for the three permits");
    }

    @Test
    void aLoneLongIsPermitsOnTheShaperAndKeyedFronts()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(1_000 * SECOND_NS);
        final Limit limit = Limit.perSecond(10, 5);
        final Shaper shaper = dev.cellrate.TestShapers.shaper(limit, ShaperMode.nodelay(), CellArray.allocate(1), 0, clock);
        assertEquals(0, shaper.reserve(5));
        assertTrue(Result.isEncodedRetryAfter(shaper.reserve(1)));

        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(limit).slotCount(64).shardCount(1).clock(clock).build();
        assertEquals(Result.ADMITTED, keyed.tryAcquire(7L, 5));
        assertTrue(keyed.tryAcquire(7L, 1) > 0, "(key, permits): five permits were charged on key 7");
        assertEquals(Result.ADMITTED, keyed.tryAcquire(8L, 1));
        assertEquals(Result.ADMITTED, keyed.tryAcquire("user", 5));
        assertTrue(keyed.tryAcquire("user", 1) > 0);
    }

    @Test
    void noPublicMethodTakesALoneLongThatMeansTime() throws Exception
    {
        final Class<?>[] fronts = {
            RateLimiter.class, SingleThreadedRateLimiter.class, PayLaterRateLimiter.class, KeyedRateLimiter.class,
            FixedWindowLimiter.class, SlidingCounterLimiter.class, SlidingLogLimiter.class,
            WarmingUpRateLimiter.class, CompositeRateLimiter.class, Shaper.class,
            dev.cellrate.KeyedShaper.class, dev.cellrate.tcm.SrTcm.class, dev.cellrate.tcm.TrTcm.class,
            dev.cellrate.KeyedCompositeRateLimiter.class, Limiter.class, KeyedLimiter.class,
            Reserver.class, KeyedReserver.class, Marker.class, ClassedKeyedRateLimiter.class,
            dev.cellrate.ReconfigurableKeyedRateLimiter.class, dev.cellrate.observe.ObservedReserver.class,
            dev.cellrate.observe.ObservedKeyedReserver.class, dev.cellrate.observe.ObservedMarker.class,
            dev.cellrate.observe.ObservedConcurrencyLimiter.class,
        };
        for (final Class<?> front : fronts)
        {
            for (final Method method : front.getMethods())
            {
                if (Modifier.isStatic(method.getModifiers()))
                {
                    continue;
                }
                assertFalse(method.getName().endsWith("Now"), front.getSimpleName() + "." + method.getName());
                final Class<?>[] types = method.getParameterTypes();
                final boolean decisionCall = method.getName().startsWith("tryAcquire") ||
                    method.getName().startsWith("reserve") || method.getName().startsWith("mark");
                if (decisionCall && 1 == types.length && long.class == types[0])
                {
                    final Class<?> owner = method.getDeclaringClass();
                    assertTrue(owner == Limiter.class || owner == Reserver.class || owner == Marker.class,
                        front.getSimpleName() + "." + method + ": a lone long is only the contract's permits");
                }
            }
        }
        assertEquals(long.class, Limiter.class.getMethod("tryAcquire", long.class).getReturnType());
    }
}
