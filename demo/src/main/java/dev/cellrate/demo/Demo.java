package dev.cellrate.demo;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.KeyedRateLimiterBuilder;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.SingleThreadedRateLimiter;
import dev.cellrate.PayLaterRateLimiter;
import dev.cellrate.composite.CompositeRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import dev.cellrate.tcm.Colour;
import dev.cellrate.tcm.SrTcm;
import dev.cellrate.tcm.TrTcm;
import dev.cellrate.translate.Envoy;
import dev.cellrate.translate.Guava;
import dev.cellrate.translate.Nginx;
import dev.cellrate.translate.RedisCell;
import dev.cellrate.warmup.WarmingUpRateLimiter;
import org.agrona.concurrent.SystemNanoClock;
import dev.cellrate.window.FixedWindowLimiter;
import dev.cellrate.window.SlidingCounterLimiter;
import dev.cellrate.window.SlidingLogLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one-minute tour: {@code java -jar demo/target/cellrate-demo.jar}.
 * <ol>
 *     <li>Replays the reference traces (fixed-window boundary, sliding-counter adversary,
 *     section-7 burst) through every cellrate limiter, each configured as 10 per second with bursts of 10,
 *     and prints what each admitted, the most it admitted in any one-second window and its first
 *     rejection.</li>
 *     <li>Runs a short keyed workload on two threads and prints decisions per second and bytes allocated per
 *     decision.</li>
 * </ol>
 * {@code java -jar demo/target/cellrate-demo.jar --stat-dir DIR [--seconds N]} also writes the keyed workload's counters
 * (and those of a 500/s candidate limit run in dry-run beside it) to {@code DIR/cellrate-stat.dat} for
 * {@code cellrate-stat DIR 1}, and runs the workload for N seconds (default 3).
 * {@code --table-file FILE} keeps the keyed workload's table in FILE ({@code mappedFile}): a second run, or a
 * second demo at the same time, starts from the keys the first left.
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
        java.nio.file.Path statDir = null;
        java.nio.file.Path tableFile = null;
        long workloadSeconds = 3;
        for (int i = 0; i + 1 < args.length; i++)
        {
            if ("--stat-dir".equals(args[i]))
            {
                statDir = java.nio.file.Path.of(args[++i]);
            }
            else if ("--table-file".equals(args[i]))
            {
                tableFile = java.nio.file.Path.of(args[++i]);
            }
            else if ("--seconds".equals(args[i]))
            {
                workloadSeconds = Long.parseLong(args[++i]);
            }
        }
        final long startNs = System.nanoTime();
        System.out.println("cellrate demo: every limiter on the reference traces, limit 10/s, burst 10");
        System.out.println("(\"max in any 1 s\" counts releases: for the delay shaper, when it lets a request go)");
        System.out.println();
        printDialects();
        for (final Trace trace : List.of(Trace.fixedWindowBoundary(), Trace.slidingCounterAdversary(),
            Trace.burstAfterIdle()))
        {
            printTrace(trace, rows());
        }
        System.out.println("Notes: Guava's create(10) (PayLaterRateLimiter) stores a full second, so it is burst 11: one more");
        System.out.println("than GCRA everywhere. The colour markers (RFC 2697/2698) add whole tokens at ticks of 1/rate, so");
        System.out.println("0.901 s after 1.999 s they have 10 new tokens where GCRA has 9.01. WarmingUpRateLimiter starts cold");
        System.out.println("(Guava SmoothWarmingUp: permits up to 3x further apart). ConcurrencyLimiter caps requests in");
        System.out.println("flight, not a rate, so it has no row.");
        System.out.println();
        if (null == statDir)
        {
            keyedWorkload(tableFile);
        }
        else
        {
            DemoStats.keyedWorkload(statDir, workloadSeconds);
        }
        System.out.printf(Locale.ROOT, "%ndemo finished in %.1f s%n", (System.nanoTime() - startNs) / 1e9);
    }

    static List<Row> rows()
    {
        final Limit limit = Limit.perSecond(PER_SECOND, BURST);
        return List.of(
            new Row("RateLimiter (GCRA = token bucket, CAS)", () ->
            {
                final RateLimiter limiter = new RateLimiter(limit);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("SingleThreadedRateLimiter (GCRA)", () ->
            {
                final SingleThreadedRateLimiter limiter = new SingleThreadedRateLimiter(limit);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("KeyedRateLimiter (GCRA per key, one key)", () ->
            {
                final KeyedRateLimiter limiter = KeyedRateLimiter.builder(limit).slotCount(1024).build();
                return nowNs -> Result.isAdmitted(limiter.tryAcquire(42L, 1, nowNs)) ?
                    0 : TraceLimiter.REJECTED;
            }),
            new Row("PayLaterRateLimiter (Guava create(10))", () ->
            {
                final PayLaterRateLimiter limiter = Guava.create(PER_SECOND).newRateLimiter(0, SystemNanoClock.INSTANCE);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("WarmingUpRateLimiter (Guava create(10, 1 s))", () ->
            {
                final WarmingUpRateLimiter limiter = WarmingUpRateLimiter.guava(
                    PER_SECOND, 1, TimeUnit.SECONDS, 0, SystemNanoClock.INSTANCE);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("CompositeRateLimiter (10/s b10 + 30/min b30)", () ->
            {
                final CompositeRateLimiter limiter =
                    CompositeRateLimiter.of(limit, Limit.of(30, 1, TimeUnit.MINUTES, 30));
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("Shaper, delay (leaky queue, NGINX default)", () ->
            {
                final Shaper shaper = new Shaper(limit, ShaperMode.delay());
                return nowNs -> shaped(shaper.reserve(1, nowNs));
            }),
            new Row("Shaper, nodelay (= policing)", () ->
            {
                final Shaper shaper = new Shaper(limit, ShaperMode.nodelay());
                return nowNs -> shaped(shaper.reserve(1, nowNs));
            }),
            new Row("KeyedShaper, delay (one key)", () ->
            {
                final KeyedShaper shaper = KeyedRateLimiter.builder(limit).slotCount(1024).shardCount(16)
                    .idleGraceNs(Trace.SECOND_NS).buildShaper(ShaperMode.delay());
                return nowNs -> shaped(shaper.reserve(42L, 1, nowNs));
            }),
            new Row("FixedWindowLimiter (10 per aligned 1 s)", () ->
            {
                final FixedWindowLimiter limiter = new FixedWindowLimiter(BURST, Trace.SECOND_NS);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("SlidingCounterLimiter (10 per ~1 s)", () ->
            {
                final SlidingCounterLimiter limiter = new SlidingCounterLimiter(BURST, Trace.SECOND_NS);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("SlidingLogLimiter (exactly 10 in any 1 s)", () ->
            {
                final SlidingLogLimiter limiter = new SlidingLogLimiter(BURST, Trace.SECOND_NS);
                return nowNs -> policed(limiter.tryAcquire(1, nowNs));
            }),
            new Row("srTCM green (CIR 10/s, CBS 10, EBS 10)", () -> marked(
                new SrTcm(PER_SECOND, BURST, BURST), false)),
            new Row("srTCM green or yellow", () -> marked(new SrTcm(PER_SECOND, BURST, BURST), true)),
            new Row("trTCM green (PIR 20/s PBS 10, CIR 10/s CBS 10)", () -> marked(
                new TrTcm(2 * PER_SECOND, BURST, PER_SECOND, BURST), false)),
            new Row("trTCM green or yellow", () -> marked(
                new TrTcm(2 * PER_SECOND, BURST, PER_SECOND, BURST), true)),
            new Row("reference: Bucket4j 8.14 greedy bucket", Demo::bucket4j));
    }

    private static long policed(final long code)
    {
        return Result.ADMITTED == code ? 0 : TraceLimiter.REJECTED;
    }

    private static TraceLimiter marked(final SrTcm marker, final boolean yellowPasses)
    {
        return nowNs -> passes(marker.mark(1, nowNs), yellowPasses);
    }

    private static TraceLimiter marked(final TrTcm marker, final boolean yellowPasses)
    {
        return nowNs -> passes(marker.mark(1, nowNs), yellowPasses);
    }

    private static long passes(final int colour, final boolean yellowPasses)
    {
        return Colour.GREEN == colour || (yellowPasses && Colour.YELLOW == colour) ? 0 : TraceLimiter.REJECTED;
    }

    /**
     * "10 per second, bursts of 10" in each peer's dialect, translated: the off-by-ones of docs/translations.md.
     */
    static void printDialects()
    {
        System.out.println("\"10 per second, bursts of 10\" in each system's dialect, translated to GCRA(T, tau):");
        final String format = "  %-44s %s%n";
        System.out.printf(format, "NGINX  rate=10r/s burst=9", Nginx.limitReq(PER_SECOND, Nginx.RateUnit.PER_SECOND,
            BURST - 1).limit());
        System.out.printf(format, "redis-cell  CL.THROTTLE key 9 10 1", RedisCell.throttle(BURST - 1, PER_SECOND, 1));
        System.out.printf(format, "Envoy  max_tokens 10, 10 per 1 s", Envoy.tokenBucket(BURST, PER_SECOND, 1,
            TimeUnit.SECONDS));
        System.out.printf(format, "Guava  RateLimiter.create(10)", Guava.create(PER_SECOND).limit());
        System.out.printf(format, "cellrate  Limit.perSecond(10, 10)", Limit.perSecond(PER_SECOND, BURST));
        System.out.println("  -> the same 10 written 9, 9, 10 and 10; Guava's create(10) is burst 11 (one second stored + 1)");
        System.out.println();
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
        final String format = "  %-47s %9s %15s %17s %10s%n";
        System.out.printf(format, "limiter", "admitted", "max in any 1 s", "first rejection", "max delay");
        for (final Row row : rows)
        {
            final TraceReplay replay = TraceReplay.replay(trace, row.factory().get());
            System.out.printf(format, row.name(), replay.admitted + "/" + replay.arrivals,
                replay.maxInAnySecond, replay.firstRejection(), replay.maxDelay());
        }
        System.out.printf("  -> %s%n%n", trace.lesson().replace("\n", "\n     "));
    }

    private static void keyedWorkload(final java.nio.file.Path tableFile) throws InterruptedException
    {
        final int keyCount = 100_000;
        final int threads = 2;
        final KeyedRateLimiterBuilder builder = KeyedRateLimiter.builder(Limit.perSecond(1_000, 100))
            .expectedKeys(keyCount);
        if (null != tableFile)
        {
            builder.mappedFile(tableFile);
        }
        final KeyedRateLimiter keyed = builder.build();
        if (null != tableFile)
        {
            System.out.printf(Locale.ROOT, "Table file %s: %,d live keys at start (kept across runs, shared by " +
                "every process on the file)%n", tableFile, keyed.liveKeys());
        }
        final KeyedWorkload.KeyedDecider decider = (key, nowNs) -> keyed.tryAcquire(key, 1, nowNs);
        System.out.printf(Locale.ROOT,
            "Keyed workload: KeyedRateLimiter, %d threads, %,d keys (Zipf 0.99), 1000/s burst 100 per key,%n" +
                "  System.nanoTime() per decision, a table sized for the keys (builder.expectedKeys)%n",
            threads, keyCount);
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
