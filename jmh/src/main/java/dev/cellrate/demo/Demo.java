package dev.cellrate.demo;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.SingleThreadedRateLimiter;
import dev.cellrate.shaper.Shaper;
import dev.cellrate.shaper.ShaperMode;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The one-minute tour: {@code java -jar jmh/target/demo.jar}.
 * <ol>
 *     <li>Replays the seed article's reference traces (fixed-window boundary, sliding-counter adversary,
 *     section-7 burst) through every cellrate limiter, each configured as 10 per second with bursts of 10,
 *     and prints what each admitted, the most it admitted in any one-second window and its first
 *     rejection.</li>
 *     <li>Runs a short keyed workload on two threads and prints decisions per second and bytes allocated per
 *     decision.</li>
 * </ol>
 * {@code java -jar jmh/target/demo.jar memory} instead measures bytes per key (see {@link dev.cellrate.bench.MemoryPerKey}).
 */
public final class Demo
{
    private static final long PER_SECOND = 10;
    private static final long BURST = 10;

    private Demo()
    {
    }

    /** A named limiter kind and a factory of fresh instances. */
    record Row(String name, Supplier<TraceLimiter> factory)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && "memory".equals(args[0]))
        {
            dev.cellrate.bench.MemoryPerKey.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        final long startNs = System.nanoTime();
        System.out.println("cellrate demo: every limiter on the seed's reference traces, limit 10/s, burst 10");
        System.out.println("(\"max in any 1 s\" counts releases: for the delay shaper, when it lets a request go)");
        System.out.println();
        for (final Trace trace : List.of(Trace.fixedWindowBoundary(), Trace.slidingCounterAdversary(),
            Trace.burstAfterIdle()))
        {
            printTrace(trace, rows());
        }
        keyedWorkload();
        System.out.printf(Locale.ROOT, "%ndemo finished in %.1f s%n", (System.nanoTime() - startNs) / 1e9);
    }

    static List<Row> rows()
    {
        final Limit limit = Limit.perSecond(PER_SECOND, BURST);
        return List.of(
            new Row("RateLimiter (GCRA = token bucket, CAS)", () ->
            {
                final RateLimiter limiter = new RateLimiter(limit);
                return nowNs -> policed(limiter.tryAcquire(nowNs));
            }),
            new Row("SingleThreadedRateLimiter (GCRA)", () ->
            {
                final SingleThreadedRateLimiter limiter = new SingleThreadedRateLimiter(limit);
                return nowNs -> policed(limiter.tryAcquire(nowNs));
            }),
            new Row("KeyedRateLimiter (GCRA per key, one key)", () ->
            {
                final KeyedRateLimiter limiter = KeyedRateLimiter.builder(limit).slotCount(1024).build();
                return nowNs -> KeyedRateLimiter.isAdmitted(limiter.tryAcquire(42L, nowNs)) ?
                    0 : TraceLimiter.REJECTED;
            }),
            new Row("Shaper, delay (leaky queue, NGINX default)", () ->
            {
                final Shaper shaper = new Shaper(limit, ShaperMode.delay());
                return nowNs -> shaped(shaper.reserve(nowNs));
            }),
            new Row("Shaper, nodelay (= policing)", () ->
            {
                final Shaper shaper = new Shaper(limit, ShaperMode.nodelay());
                return nowNs -> shaped(shaper.reserve(nowNs));
            }),
            new Row("FixedWindowLimiter (10 per aligned 1 s)", () ->
            {
                final FixedWindowLimiter limiter = new FixedWindowLimiter(BURST, Trace.SECOND_NS);
                return nowNs -> policed(limiter.tryAcquire(nowNs));
            }),
            new Row("SlidingCounterLimiter (10 per ~1 s)", () ->
            {
                final SlidingCounterLimiter limiter = new SlidingCounterLimiter(BURST, Trace.SECOND_NS);
                return nowNs -> policed(limiter.tryAcquire(nowNs));
            }),
            new Row("SlidingLogLimiter (exactly 10 in any 1 s)", () ->
            {
                final SlidingLogLimiter limiter = new SlidingLogLimiter(BURST, Trace.SECOND_NS);
                return nowNs -> policed(limiter.tryAcquire(nowNs));
            }),
            new Row("reference: Bucket4j 8.14 greedy bucket", Demo::bucket4j));
    }

    private static long policed(final long code)
    {
        return Result.ADMITTED == code ? 0 : TraceLimiter.REJECTED;
    }

    private static long shaped(final long code)
    {
        return code >= 0 ? code : TraceLimiter.REJECTED;
    }

    private static TraceLimiter bucket4j()
    {
        final long[] nowNs = new long[1];
        final TimeMeter meter = new TimeMeter()
        {
            public long currentTimeNanos()
            {
                return nowNs[0];
            }

            public boolean isWallClockBased()
            {
                return false;
            }
        };
        final Bucket bucket = Bucket.builder()
            .addLimit(Bandwidth.builder().capacity(BURST).refillGreedy(PER_SECOND, Duration.ofSeconds(1)).build())
            .withCustomTimePrecision(meter)
            .build();
        return t ->
        {
            nowNs[0] = t;
            return bucket.tryConsume(1) ? 0 : TraceLimiter.REJECTED;
        };
    }

    static void printTrace(final Trace trace, final List<Row> rows)
    {
        System.out.printf("Trace: %s%n  %s%n", trace.name(), trace.description());
        final String format = "  %-44s %9s %16s %18s %10s%n";
        System.out.printf(format, "limiter", "admitted", "max in any 1 s", "first rejection", "max delay");
        for (final Row row : rows)
        {
            final TraceReplay replay = TraceReplay.replay(trace, row.factory().get());
            System.out.printf(format, row.name(), replay.admitted + "/" + replay.arrivals,
                replay.maxInAnySecond, replay.firstRejection(), replay.maxDelay());
        }
        System.out.printf("  -> %s%n%n", trace.lesson().replace("\n", "\n     "));
    }

    private static void keyedWorkload() throws InterruptedException
    {
        final int keyCount = 100_000;
        final int threads = 2;
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(Limit.perSecond(1_000, 100))
            .expectedKeys(keyCount)
            .build();
        final KeyedWorkload.KeyedDecider decider = (key, nowNs) -> keyed.tryAcquire(key, nowNs);
        System.out.printf(Locale.ROOT,
            "Keyed workload: KeyedRateLimiter, %d threads, %,d keys (Zipf 0.99), 1000/s burst 100 per key,%n" +
                "  System.nanoTime() per decision, %,d slots = %,d bytes off-heap (%.1f B/key)%n",
            threads, keyCount, keyed.table().slotCount(), keyed.table().buffer().capacity(),
            keyed.table().buffer().capacity() / (double)keyCount);
        final KeyedWorkload.Outcome outcome = new KeyedWorkload(decider, keyCount, threads)
            .run(1_000_000_000L, 3_000_000_000L);
        System.out.printf(Locale.ROOT, "  decisions/s          %,.0f (%.1f per us per thread)%n",
            outcome.decisionsPerSecond(), outcome.decisionsPerSecond() / 1e6 / threads);
        System.out.printf(Locale.ROOT, "  admitted             %.1f%% of %,d decisions; live keys %,d%n",
            100.0 * outcome.admitted() / Math.max(1, outcome.decisions()), outcome.decisions(), keyed.liveKeys());
        System.out.printf(Locale.ROOT, "  bytes allocated      %,d in total, %.6f per decision%n",
            outcome.allocatedBytes(), outcome.bytesPerDecision());
    }
}
