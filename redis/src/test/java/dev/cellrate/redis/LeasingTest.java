package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * Two-tier leasing: several processes (each its own connection, Redis front and lease table) hammer one key;
 * the permits admitted in every window exceed the GCRA bound by no more than the published bound
 * P &middot; min(k, b - 1), for k = 1, 10, 100; plain Redis decisions (the control) never exceed it at all.
 * Caller time is used for both tiers so that one clock orders every admission.
 */
class LeasingTest
{
    private static final long INTERVAL_NS = 1_000_000;          // 1000/s
    private static final long TOLERANCE_NS = 199 * INTERVAL_NS; // burst 200
    private static final int PROCESSES = 3;
    private static final long RUN_NS = TimeUnit.MILLISECONDS.toNanos(800);
    private static RedisFixture redis;

    @BeforeAll
    static void start() throws Exception
    {
        redis = new RedisFixture();
    }

    @AfterAll
    static void stop() throws Exception
    {
        redis.close();
    }

    @Test
    void overAdmissionStaysUnderThePublishedBound() throws Exception
    {
        final StringBuilder report = new StringBuilder();
        assertTrue(run(0, report) <= 0.0, "plain decisions never exceed the GCRA bound");
        for (final long k : new long[] {1, 10, 100})
        {
            final double over = run(k, report);
            final long bound = PROCESSES * Math.min(k, 199);
            assertTrue(over <= bound, "k=" + k + ": over-admission " + over + " > bound " + bound);
        }
        System.out.print(report);
    }

    /**
     * @param times admission times (one permit each), any order; sorted in place.
     * @return the largest over-admission in permits over all windows [t_i, t_j]: count - (tau + T + L) / T.
     */
    static double overAdmission(final long[] times, final Limit limit)
    {
        Arrays.sort(times);
        final long intervalNs = limit.emissionIntervalNs();
        // max over i <= j of (j - i + 1) T - ceiling - (t_j - t_i), in ns: [(j + 1) T - t_j] + max_i [t_i - i T]
        long bestNs = Long.MIN_VALUE;
        long bestStart = Long.MIN_VALUE;
        for (int j = 0; j < times.length; j++)
        {
            bestStart = Math.max(bestStart, times[j] - (long)j * intervalNs);
            bestNs = Math.max(bestNs, (long)(j + 1) * intervalNs - times[j] + bestStart - limit.ceilingNs());
        }
        return times.length == 0 ? 0 : (double)bestNs / intervalNs;
    }

    /**
     * The worst case, deterministic on caller time: two processes lease at t0 and sit on their leases; when the
     * Redis cell is full again a third process takes the whole burst from Redis while the two spend their leases
     * in the same instant. The measured over-admission approaches the bound and stays under it.
     */
    @Test
    void adversarialLeasesApproachTheBound()
    {
        final Limit limit = Limit.ofGcra(INTERVAL_NS, TOLERANCE_NS);
        final StringBuilder report = new StringBuilder();
        for (final long k : new long[] {1, 10, 100})
        {
            final String prefix = "lease-adv:" + k + ":" + System.nanoTime() + ":";
            final RedisRateLimiter plain = RedisRateLimiter.builder(redis.connection, limit, FailPolicy.CLOSED)
                .prefix(prefix).extraTtlMs(60_000).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
            final LeasingRateLimiter first = new LeasingRateLimiter(plain, k, 1_000_000_000, 16);
            final LeasingRateLimiter second = new LeasingRateLimiter(plain, k, 1_000_000_000, 16);
            final long t0 = System.currentTimeMillis() * 1_000_000L / 1000 * 1000;
            final long t1 = t0 + limit.ceilingNs();
            final long[] times = new long[4096];
            int n = 0;
            for (final LeasingRateLimiter p : new LeasingRateLimiter[] {first, second})
            {
                assertEquals(Result.ADMITTED, p.tryAcquire("hot", 1, t0, null));
                times[n++] = t0;
            }
            while (Result.ADMITTED == plain.tryAcquire("hot", 1, t1))
            {
                times[n++] = t1;
            }
            for (final LeasingRateLimiter p : new LeasingRateLimiter[] {first, second})
            {
                final long before = p.localAdmissions();
                while (Result.ADMITTED == p.tryAcquire("hot", 1, t1, null) && p.localAdmissions() > before)
                {
                    times[n++] = t1;
                }
            }
            final double over = overAdmission(Arrays.copyOf(times, n), limit);
            final long bound = 2 * Math.min(k, limit.burst() - 1);
            report.append(String.format("two-tier adversarial k=%d: leased %d + %d, over-admission %.2f permits, " +
                "bound for the 2 leasing processes %d%n", k, first.permitsLeased(), second.permitsLeased(), over, bound));
            assertTrue(over <= bound, "k=" + k + ": " + over + " > " + bound);
            assertTrue(over >= Math.min(k, limit.burst() - 1) - 1, "the worst case is reached: " + over);
            plain.close();
        }
        System.out.print(report);
    }

    private static double run(final long k, final StringBuilder report) throws Exception
    {
        final Limit limit = Limit.ofGcra(INTERVAL_NS, TOLERANCE_NS);
        final String prefix = "lease:" + k + ":" + System.nanoTime() + ":";
        final long epochNs = System.currentTimeMillis() * 1_000_000L;
        final long originNs = System.nanoTime();
        final long[][] times = new long[PROCESSES][1 << 20];
        final int[] counts = new int[PROCESSES];
        final long[] roundTrips = new long[PROCESSES];
        final long[] local = new long[PROCESSES];
        final CyclicBarrier go = new CyclicBarrier(PROCESSES);
        final List<Throwable> errors = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++)
        {
            final int process = p;
            final StatefulRedisConnection<byte[], byte[]> connection = RedisServer.connect(redis.client);
            final RedisRateLimiter plain = RedisRateLimiter.builder(connection, limit, FailPolicy.CLOSED)
                .prefix(prefix).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
            final LeasingRateLimiter leasing = k > 0 ? new LeasingRateLimiter(plain, k, 100_000_000, 1024) : null;
            plain.tryAcquire("warm", 1); // load the script
            threads.add(new Thread(() ->
            {
                try (connection)
                {
                    go.await();
                    final long endNs = System.nanoTime() + RUN_NS;
                    long nowNs;
                    while ((nowNs = System.nanoTime()) < endNs)
                    {
                        final long callerNs = (epochNs + nowNs - originNs) / 1000 * 1000; // whole us
                        final long code = null == leasing ?
                            plain.tryAcquire("hot", 1, callerNs) :
                            leasing.tryAcquire("hot", 1, callerNs, null);
                        if (Result.ADMITTED == code)
                        {
                            times[process][counts[process]++] = callerNs;
                        }
                        else if (code <= 0)
                        {
                            throw new IllegalStateException("code " + code);
                        }
                    }
                    roundTrips[process] = plain.roundTrips() - 1; // less the warm-up call
                    local[process] = null == leasing ? 0 : leasing.localAdmissions();
                    assertEquals(0, plain.fallbacks());
                    plain.close();
                }
                catch (final Throwable ex)
                {
                    synchronized (errors)
                    {
                        errors.add(ex);
                    }
                }
            }));
        }
        for (final Thread t : threads)
        {
            t.start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        assertTrue(errors.isEmpty(), errors::toString);
        int total = 0;
        for (final int c : counts)
        {
            total += c;
        }
        final long[] all = new long[total];
        int at = 0;
        for (int p = 0; p < PROCESSES; p++)
        {
            System.arraycopy(times[p], 0, all, at, counts[p]);
            at += counts[p];
        }
        final double over = overAdmission(all, limit);
        long trips = 0;
        long locals = 0;
        for (int p = 0; p < PROCESSES; p++)
        {
            trips += roundTrips[p];
            locals += local[p];
        }
        report.append(String.format("two-tier k=%d: %d processes, %d admitted in %d ms (%d locally), %d round trips; " +
                "max over-admission %.2f permits, published bound %d%n",
            k, PROCESSES, total, TimeUnit.NANOSECONDS.toMillis(RUN_NS), locals, trips, over,
            PROCESSES * Math.min(k, 199)));
        return over;
    }
}
