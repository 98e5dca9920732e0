package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import dev.cellrate.gcra.AtomicGcra;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A probe of the single cell's admit path against its floor, in CPU time of the thread (as
 * {@link SingleCellCpuTime}): where does a GCRA decision's cost over a bare read-then-CAS go? Workloads, each on
 * its own padded word, alternated in one JVM, each round giving one ratio to {@code get + CAS}:
 * <ul>
 *     <li>{@code RateLimiter}: {@code tryAcquire(1, nowNs++)}, the engine's path;</li>
 *     <li>{@code no Limit load}: {@link AtomicGcra#acquireAt}, today's checks, with the increment and the
 *     ceiling held in this object's fields and a null base (what a limiter that copied {@code Limit}'s fields
 *     would do: no load through {@code limit}, no load of the base object);</li>
 *     <li>{@code latest-TAT, I from Limit}: the latest-TAT check below with the increment computed per call by
 *     {@code limit.incrementNs(1)}, as {@code RateLimiter} does;</li>
 *     <li>{@code latest-TAT check}: the same decision with one comparison between the TAT's load and the CAS:
 *     the latest conforming TAT, {@code now + (ceiling - I)}, is computed from the arguments while the load is in
 *     flight, and a request conforms iff {@code TAT <= latest} (exact when {@code 1 <= I <= ceiling} and
 *     {@code now + ceiling} does not overflow; anything else goes to {@link AtomicGcra#acquireAt});</li>
 *     <li>{@code no check}: the CAS to {@code max(TAT, now) + 1} with no decision at all (not a limiter: the lower
 *     bound of any code that CASes a value computed from the TAT and the time);</li>
 *     <li>{@code get + CAS}: {@code AtomicLong.get()} then {@code compareAndExchange(v, v + 1)}, the floor (with
 *     the same per-call store of the time as the others).</li>
 * </ul>
 * Before measuring, the latest-TAT path is checked against {@link AtomicGcra#acquireAt} on every combination of
 * edge and random TATs, times, costs and ceilings (same code, same TAT after); the program stops if one differs.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.CheckOrderCpuTime [rounds]}.
 */
public final class CheckOrderCpuTime
{
    private static final int OPS = 5_000_000;
    private static final Limit LIMIT = SingleLimiterBenchmark.CELLRATE_ADMIT;
    private static final String[] NAMES = {"RateLimiter", "no Limit load", "latest-TAT, I from Limit", "latest-TAT check",
        "no check", "get + CAS"};

    private final RateLimiter cell = new RateLimiter(LIMIT);
    private final Limit limit = LIMIT;
    private final long fieldsWord;
    private final long limitWord;
    private final long latestWord;
    private final long bareWord;
    private final long ceilingNs = LIMIT.ceilingNs();
    private final long incrementNs = LIMIT.incrementNs(1);
    private final AtomicLong casCounter = new AtomicLong();
    private long nowNs = 1;

    private CheckOrderCpuTime(final long words)
    {
        fieldsWord = words + 384;
        limitWord = words + 448;
        latestWord = words + 128;
        bareWord = words + 256;
    }

    /**
     * The admit decision with the latest conforming TAT computed before the TAT is read.
     *
     * @return the code {@link AtomicGcra#acquireAt} returns for the same arguments and word.
     */
    static long acquireLatest(
        final Object base, final long address, final long incrementNs, final long ceilingNs, final long nowNs)
    {
        final long slackNs = ceilingNs - incrementNs;
        final long latestTatNs = nowNs + slackNs;
        long tatNs = UnsafeApi.getLongAcquire(base, address);
        if (incrementNs >= 1 && slackNs >= 0 && nowNs <= Long.MAX_VALUE - ceilingNs)
        {
            while (true)
            {
                if (tatNs <= latestTatNs)
                {
                    final long witnessNs = UnsafeApi.compareAndExchangeLong(
                        base, address, tatNs, Math.max(tatNs, nowNs) + incrementNs);
                    if (witnessNs == tatNs)
                    {
                        return Result.ADMITTED;
                    }
                    tatNs = witnessNs;
                    continue;
                }
                final long retryAfterNs = tatNs - latestTatNs;
                if (retryAfterNs > 0)
                {
                    return retryAfterNs;
                }
                break;
            }
        }
        return AtomicGcra.acquireAt(base, address, incrementNs, ceilingNs, nowNs);
    }

    /**
     * @return how many combinations were compared (throws if one differs).
     */
    static long checkExact(final long a, final long b)
    {
        final long p = 1L << 62;
        final List<Long> values = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -p, -p - 1, -1L, 0L,
            1L, 2L, p - 1, p, p + 1, Long.MAX_VALUE - p, Long.MAX_VALUE - p + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE,
            1000L, -1000L));
        final Random random = new Random(42);
        for (int i = 0; i < 30; i++)
        {
            values.add(random.nextLong());
        }
        final long[] increments = {Result.NEVER, -1, 0, 1, 7, 1000, p / 2, p - 1, p};
        final long[] ceilings = {1, 2, 1000, 1001, p / 2 + 1, p - 1, p};
        long cases = 0;
        for (final long tat : values)
        {
            for (final long now : values)
            {
                for (final long increment : increments)
                {
                    for (final long ceiling : ceilings)
                    {
                        UnsafeApi.putLongVolatile(null, a, tat);
                        UnsafeApi.putLongVolatile(null, b, tat);
                        final long expected = AtomicGcra.acquireAt(null, a, increment, ceiling, now);
                        final long actual = acquireLatest(null, b, increment, ceiling, now);
                        if (expected != actual || UnsafeApi.getLongVolatile(null, a) != UnsafeApi.getLongVolatile(null, b))
                        {
                            throw new IllegalStateException("differs at TAT " + tat + ", now " + now + ", I " + increment
                                + ", ceiling " + ceiling + ": " + expected + " against " + actual);
                        }
                        cases++;
                    }
                }
            }
        }
        return cases;
    }

    /**
     * @param args optional round count (default 15).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        final long words = new UnsafeBuffer(BufferUtil.allocateDirectAligned(1024, 128)).addressOffset();
        System.out.println("latest-TAT check: same codes and TATs as AtomicGcra.acquireAt on "
            + checkExact(words + 512, words + 640) + " edge cases");
        final CheckOrderCpuTime work = new CheckOrderCpuTime(words);
        final PairedRounds measured = PairedRounds.measure(NAMES.length, 3, rounds, w -> OPS, work::run);
        final double[] floor = measured.ns(NAMES.length - 1);
        for (int w = 0; w < NAMES.length; w++)
        {
            final double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++)
            {
                ratio[r] = measured.ns(w)[r] / floor[r];
            }
            final double[] sorted = PairedRounds.sorted(measured.ns(w));
            Arrays.sort(ratio);
            System.out.printf("%-18s %5.2f cpu-ns/op (%.2f-%.2f); / get + CAS %.2fx (%.2f-%.2f), %d rounds%n", NAMES[w],
                sorted[rounds / 2], sorted[0], sorted[rounds - 1], ratio[rounds / 2], ratio[0], ratio[rounds - 1], rounds);
        }
        System.out.println("(sink " + (measured.sink() & 1) + ")");
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return rateLimiter();
            case 1:
                return noLimitLoad();
            case 2:
                return latestTatFromLimit();
            case 3:
                return latestTat();
            case 4:
                return noCheck();
            default:
                return getAndCas();
        }
    }

    // one method per workload, so each loop is compiled on its own
    private long rateLimiter()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += cell.tryAcquire(1, nowNs++);
        }
        return sink;
    }

    private long noLimitLoad()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += AtomicGcra.acquireAt(null, fieldsWord, incrementNs, ceilingNs, nowNs++);
        }
        return sink;
    }

    private long latestTatFromLimit()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += acquireLatest(null, limitWord, limit.incrementNs(1), ceilingNs, nowNs++);
        }
        return sink;
    }

    private long latestTat()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += acquireLatest(null, latestWord, incrementNs, ceilingNs, nowNs++);
        }
        return sink;
    }

    private long noCheck()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long tatNs = UnsafeApi.getLongAcquire(null, bareWord);
            final long now = nowNs++;
            sink += UnsafeApi.compareAndExchangeLong(null, bareWord, tatNs, Math.max(tatNs, now) + 1) == tatNs ? 0 : 1;
        }
        return sink;
    }

    private long getAndCas()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final AtomicLong word = casCounter;
            long value = word.get();
            while (true)
            {
                final long witness = word.compareAndExchange(value, value + 1);
                if (witness == value)
                {
                    break;
                }
                value = witness;
            }
            nowNs++;
            sink += value;
        }
        return sink;
    }
}
