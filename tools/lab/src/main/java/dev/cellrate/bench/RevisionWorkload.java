package dev.cellrate.bench;

import java.util.function.LongUnaryOperator;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Reservation;
import dev.cellrate.ReservingLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;

/**
 * One keyed workload of {@link RevisionsCpuTime}, written against the engine API that every compared revision
 * has ({@code KeyedRateLimiter.builder(limit).expectedKeys(n).build()}, the one-key {@code tryAcquire} forms and
 * the long-key batch), so that the same bytecode is defined once per revision, over that revision's engine.
 * Each workload is the loop of its JMH row: {@code KeyedBenchmark.longKey} / {@code stringKey} (one call per key)
 * and {@code KeyedBatchBenchmark.batch} / {@code single} (32 keys a call, or the same 32 one call each), with the
 * admitting limit and the caller's time; {@code admit} is the single cell's {@code RateLimiter.tryAcquire(1, nowNs++)}
 * ({@code AdmitOneThreadBenchmark.cellrateCallerTime}), which ignores the keys; the single-cell reservations ignore
 * them too: {@code shape} is {@code Shaper.reserve(1, nowNs++)} (delay mode, admitted), {@code shapeHolder} the same
 * filling a {@link Reservation}, {@code shapeReject} a shaper that rejects nearly every call, {@code reserve}
 * {@code ReservingLimiter.reserve(1, nowNs++, 1000, reservation)} and {@code reserveAny} its
 * {@code reserve(1, nowNs++)} (any wait). {@link #applyAsLong} runs {@code ops} keys and returns a sink.
 */
public final class RevisionWorkload implements LongUnaryOperator
{
    /** Keys per batch call (as {@code KeyedBatchBenchmark.BATCH}). */
    static final int BATCH = 32;

    private final String kind;
    private final KeyedRateLimiter limiter;
    private final RateLimiter cell = new RateLimiter(Limit.ofGcra(1, 1L << 61));
    private final long[] longStream;
    private final String[] stringStream;
    private final int mask;
    private final long[] batchKeys = new long[BATCH];
    private final long[] codes = new long[BATCH];
    private final Shaper shaper = new Shaper(Limit.ofGcra(1, 1L << 61), ShaperMode.delay());
    private final Shaper tightShaper = new Shaper(Limit.ofGcra(1L << 20, 0), ShaperMode.delay());
    private final ReservingLimiter reserving = new ReservingLimiter(Limit.ofGcra(1, 1L << 61));
    private final Reservation reservation = new Reservation();
    private int next;
    private long nowNs = 1;

    /**
     * @param kind         {@code long}, {@code string}, {@code batch}, {@code single} or {@code admit}.
     * @param keyCount     distinct keys (every key is inserted here, so the workload decides present keys).
     * @param distinctLong the long keys, one per key index (for {@code string}: unused).
     * @param distinctText the string keys, one per key index (for the other kinds: unused).
     * @param stream       key indices, a power-of-two length.
     */
    public RevisionWorkload(
        final String kind, final int keyCount, final long[] distinctLong, final String[] distinctText,
        final int[] stream)
    {
        this.kind = kind;
        this.limiter = KeyedRateLimiter.builder(Limit.ofGcra(1, 1L << 61)).expectedKeys(keyCount).build();
        this.mask = stream.length - 1;
        final boolean text = "string".equals(kind);
        longStream = text ? null : new long[stream.length];
        stringStream = text ? new String[stream.length] : null;
        for (int i = 0; i < keyCount; i++)
        {
            if (text)
            {
                limiter.tryAcquire(distinctText[i], 1, 0);
            }
            else
            {
                limiter.tryAcquire(distinctLong[i], 1, 0);
            }
        }
        for (int i = 0; i < stream.length; i++)
        {
            if (text)
            {
                stringStream[i] = distinctText[stream[i]];
            }
            else
            {
                longStream[i] = distinctLong[stream[i]];
            }
        }
    }

    @Override
    public long applyAsLong(final long ops)
    {
        switch (kind)
        {
            case "long": return longKeys(ops);
            case "string": return stringKeys(ops);
            case "batch": return batch(ops);
            case "single": return single(ops);
            case "admit": return admit(ops);
            case "shape": return shape(ops);
            case "shapeHolder": return shapeHolder(ops);
            case "shapeReject": return shapeReject(ops);
            case "reserve": return reserve(ops);
            case "reserveAny": return reserveAny(ops);
            default: throw new IllegalArgumentException(
                "kind must be long, string, batch, single, admit, shape, shapeHolder, shapeReject, reserve or reserveAny but was " + kind);
        }
    }

    private long longKeys(final long ops)
    {
        final KeyedRateLimiter limiter = this.limiter;
        final long[] keys = longStream;
        long sink = 0;
        int i = next;
        for (long n = 0; n < ops; n++, i++)
        {
            sink += limiter.tryAcquire(keys[i & mask], 1, nowNs++);
        }
        next = i;
        return sink;
    }

    private long admit(final long ops)
    {
        final RateLimiter cell = this.cell;
        long sink = 0;
        for (long n = 0; n < ops; n++)
        {
            sink += cell.tryAcquire(1, nowNs++);
        }
        return sink;
    }

    private long shape(final long ops)
    {
        final Shaper shaper = this.shaper;
        long sink = 0;
        for (long n = 0; n < ops; n++)
        {
            sink += shaper.reserve(1, nowNs++);
        }
        return sink;
    }

    private long shapeHolder(final long ops)
    {
        final Shaper shaper = this.shaper;
        final Reservation reservation = this.reservation;
        long sink = 0;
        for (long n = 0; n < ops; n++)
        {
            sink += shaper.reserve(1, nowNs++, reservation);
        }
        return sink + reservation.releaseNs();
    }

    private long shapeReject(final long ops)
    {
        final Shaper shaper = this.tightShaper;
        long sink = 0;
        for (long n = 0; n < ops; n++)
        {
            sink += shaper.reserve(1, nowNs++);
        }
        return sink;
    }

    private long reserve(final long ops)
    {
        final ReservingLimiter reserving = this.reserving;
        final Reservation reservation = this.reservation;
        long sink = 0;
        for (long n = 0; n < ops; n++)
        {
            sink += reserving.reserve(1, nowNs++, 1_000, reservation);
        }
        return sink + reservation.releaseNs();
    }

    private long reserveAny(final long ops)
    {
        final ReservingLimiter reserving = this.reserving;
        long sink = 0;
        for (long n = 0; n < ops; n++)
        {
            sink += reserving.reserve(1, nowNs++);
        }
        return sink;
    }

    private long stringKeys(final long ops)
    {
        final KeyedRateLimiter limiter = this.limiter;
        final String[] keys = stringStream;
        long sink = 0;
        int i = next;
        for (long n = 0; n < ops; n++, i++)
        {
            sink += limiter.tryAcquire(keys[i & mask], 1, nowNs++);
        }
        next = i;
        return sink;
    }

    private long batch(final long ops)
    {
        long sink = 0;
        for (long n = 0; n < ops; n += BATCH)
        {
            limiter.tryAcquire(gather(), BATCH, 1, nowNs++, codes);
            sink += codes[0] | codes[BATCH - 1];
        }
        return sink;
    }

    private long single(final long ops)
    {
        long sink = 0;
        for (long n = 0; n < ops; n += BATCH)
        {
            final long[] keys = gather();
            final long now = nowNs++;
            for (int k = 0; k < BATCH; k++)
            {
                sink += limiter.tryAcquire(keys[k], 1, now);
            }
        }
        return sink;
    }

    private long[] gather()
    {
        final int from = next & mask;
        next = from + BATCH;
        System.arraycopy(longStream, from, batchKeys, 0, BATCH);
        return batchKeys;
    }
}
