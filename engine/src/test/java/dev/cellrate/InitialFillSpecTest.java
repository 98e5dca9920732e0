package dev.cellrate;

import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.KeyedCompositeRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.ReservingLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The initial fill on every front whose cell has a fill state: built with {@code k} initial permits, a front
 * admits exactly {@code min(k, burst)} single permits at its creation instant, then rejects with a retry-after
 * of exactly one emission interval, and admits exactly one more one interval later. {@code k = 0} is empty
 * (the first decision is a rejection), {@code k >= burst} is full (the default).
 */
final class InitialFillSpecTest
{
    private static final long T_NS = 1_000;
    /** Burst 5. */
    private static final Limit LIMIT = Limit.ofGcra(T_NS, 4 * T_NS);
    /** Burst 3, same interval: a composite with both legs admits min(k, 3). */
    private static final Limit NARROW = Limit.ofGcra(T_NS, 2 * T_NS);
    private static final long CREATED_NS = 1_000_000_000L;
    private static final long[] FILLS = {0, 1, 3, 4, 5, 9, Long.MAX_VALUE};
    private static final long[] NONEMPTY_FILLS = {1, 3, 4, 5, 9, Long.MAX_VALUE};

    @Test
    void rateLimiterAndSingleThreadedAndPayLater()
    {
        check("RateLimiter", 5, STRICT, k -> new RateLimiter(LIMIT, clock(), k)::tryAcquire);
        check("SingleThreadedRateLimiter", 5, STRICT,
            k -> new SingleThreadedRateLimiter(LIMIT, clock(), k)::tryAcquire);
        check("PayLaterRateLimiter", 5, STRICT, k -> new PayLaterRateLimiter(LIMIT, 5, clock(), k)::tryAcquire);
    }

    @Test
    void shapersAndReservingLimiter()
    {
        check("Shaper", 5, RESERVED, k -> new Shaper(LIMIT, ShaperMode.delay(), clock(), k)::reserve);
        check("ReservingLimiter", 5, RESERVED_WAIT_FREE, k ->
        {
            final ReservingLimiter limiter = new ReservingLimiter(LIMIT, clock(), k);
            return (permits, nowNs) -> limiter.reserve(permits, nowNs, 0);
        });
        check("KeyedShaper", 5, RESERVED, k ->
        {
            final KeyedShaper shaper = KeyedRateLimiter.builder(LIMIT).clock(clock()).slotCount(64)
                .initialPermits(k).buildShaper(ShaperMode.delay());
            return (permits, nowNs) -> shaper.reserve(7L, permits, nowNs);
        });
    }

    @Test
    void compositesAdmitTheSmallestFill()
    {
        check("CompositeRateLimiter", 3, STRICT,
            k -> CompositeRateLimiter.of(clock(), k, LIMIT, NARROW)::tryAcquire);
        // A keyed leg fills a key when that leg first sees it, and a leg is reached only when the legs before it
        // admit: with k >= 1 every leg sees a new key at its first request, so the composite is exact as above.
        check("KeyedCompositeRateLimiter", 3, STRICT, NONEMPTY_FILLS, InitialFillSpecTest::keyedComposite);
        // Empty (k = 0): leg 1 first sees the key one interval later, when leg 0 first admits; it is empty
        // then, so the composite's first admission comes one interval after that.
        final Decider empty = keyedComposite(0);
        assertEquals(T_NS, empty.decide(1, CREATED_NS), "leg 0 empty at creation");
        assertEquals(T_NS, empty.decide(1, CREATED_NS + T_NS), "leg 1 empty when it first sees the key");
        assertEquals(Result.ADMITTED, empty.decide(1, CREATED_NS + 2 * T_NS));
        assertEquals(T_NS, empty.decide(1, CREATED_NS + 2 * T_NS));
    }

    private static Decider keyedComposite(final long k)
    {
        final KeyedCompositeRateLimiter composite = new KeyedCompositeRateLimiter(
            KeyedRateLimiter.builder(LIMIT).clock(clock()).slotCount(64).initialPermits(k).build(),
            KeyedRateLimiter.builder(NARROW).clock(clock()).slotCount(64).initialPermits(k).build());
        final long[] keys = {11, 12};
        return (permits, nowNs) -> composite.tryAcquire(keys, permits, nowNs);
    }

    @Test
    void aKeyedLimiterFillsEveryNewKeyAtTheTimeItIsFirstSeen()
    {
        check("KeyedRateLimiter", 5, STRICT, k ->
        {
            final KeyedRateLimiter limiter =
                KeyedRateLimiter.builder(LIMIT).clock(clock()).slotCount(64).initialPermits(k).build();
            return (permits, nowNs) -> limiter.tryAcquire(3L, permits, nowNs);
        });
        final KeyedRateLimiter limiter =
            KeyedRateLimiter.builder(LIMIT).clock(clock()).slotCount(64).initialPermits(2).build();
        final long laterNs = CREATED_NS + 1_000 * T_NS;
        for (final long key : new long[] {1, 2})
        {
            final long nowNs = 1 == key ? CREATED_NS : laterNs;
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, nowNs), "key " + key);
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, nowNs), "key " + key);
            assertEquals(T_NS, limiter.tryAcquire(key, 1, nowNs), "key " + key + " has exactly 2 when first seen");
        }
    }

    @Test
    void aNegativeFillIsRefusedNamingTheField()
    {
        assertThrows(IllegalArgumentException.class, () -> new RateLimiter(LIMIT, clock(), -1));
        assertThrows(IllegalArgumentException.class, () -> new Shaper(LIMIT, ShaperMode.delay(), clock(), -1));
        assertThrows(IllegalArgumentException.class, () -> new ReservingLimiter(LIMIT, clock(), -1));
        assertThrows(IllegalArgumentException.class, () -> new PayLaterRateLimiter(LIMIT, 5, clock(), -1));
        assertThrows(IllegalArgumentException.class, () -> CompositeRateLimiter.of(clock(), -1, LIMIT));
        assertEquals("initialPermits must be in [0, " + Long.MAX_VALUE + "] but was -1", assertThrows(
            IllegalArgumentException.class, () -> KeyedRateLimiter.builder(LIMIT).initialPermits(-1)).getMessage());
    }

    /** How a front's code reads: admitted, and the retry-after of a rejection. */
    private interface Reading
    {
        boolean admitted(long code);

        long retryAfterNs(long code);
    }

    private static final Reading STRICT = new Reading()
    {
        public boolean admitted(final long code)
        {
            return Result.ADMITTED == code;
        }

        public long retryAfterNs(final long code)
        {
            return code;
        }
    };

    private static final Reading RESERVED = new Reading()
    {
        public boolean admitted(final long code)
        {
            return Result.isReserved(code);
        }

        public long retryAfterNs(final long code)
        {
            return Result.decodeRetryAfterNs(code);
        }
    };

    /** A reservation that may not wait: granted iff it needs no wait (code 0), else the wait it would need. */
    private static final Reading RESERVED_WAIT_FREE = new Reading()
    {
        public boolean admitted(final long code)
        {
            return 0 == code;
        }

        public long retryAfterNs(final long code)
        {
            return Result.decodeRetryAfterNs(code);
        }
    };

    private interface Decider
    {
        long decide(long permits, long nowNs);
    }

    private static void check(
        final String name, final long burst, final Reading reading, final LongFunction<Decider> build)
    {
        check(name, burst, reading, FILLS, build);
    }

    private static void check(
        final String name,
        final long burst,
        final Reading reading,
        final long[] fills,
        final LongFunction<Decider> build)
    {
        for (final long k : fills)
        {
            final Decider front = build.apply(k);
            final long expected = Math.min(k, burst);
            final String what = name + " filled with " + k;
            for (long i = 0; i < expected; i++)
            {
                final long code = front.decide(1, CREATED_NS);
                assertEquals(true, reading.admitted(code), what + ": permit " + i + " got " + Result.name(code));
            }
            final long rejected = front.decide(1, CREATED_NS);
            assertEquals(false, reading.admitted(rejected), what + ": permit " + expected + " admitted");
            assertEquals(T_NS, reading.retryAfterNs(rejected), what + ": retry-after of the first rejection");
            final long next = front.decide(1, CREATED_NS + T_NS);
            assertEquals(true, reading.admitted(next), what + ": one interval later got " + Result.name(next));
            assertEquals(false, reading.admitted(front.decide(1, CREATED_NS + T_NS)), what + ": only one");
        }
    }

    private static CachedNanoClock clock()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(CREATED_NS);
        return clock;
    }
}
