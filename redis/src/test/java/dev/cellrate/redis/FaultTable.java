package dev.cellrate.redis;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The per-fault table of {@code docs/distributed.md}, measured against a real redis-server: for each fault and
 * each fail policy, one limiter (the builder's defaults: 50 ms timeout, the default breaker) and one caller
 * hammering one key at about 4 times its limit on caller time (so one clock orders every admission), with the
 * fault injected after 1 s. Reported per run: what the calls got during the fault, the recovery time (from the
 * fault's end to the first decision Redis made again), and the over-admission: the largest
 * {@code count - (tau + T + L) / T} over every window of the admissions (Redis's and the fail policy's together),
 * &le; 0 when no window exceeded the GCRA bound of the limit.
 * <p>
 * Run by {@code scripts/redis-faults.sh [redis-server binary] [fault names...]} (Debian's Redis 7.0 by default;
 * every fault unless some are named, e.g. {@code MAXMEMORY}).
 */
public final class FaultTable
{
    private static final Limit LIMIT = Limit.perSecond(1000, 50); // T = 1 ms, burst 50
    private static final long BEFORE_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long FAULT_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long AFTER_NS = TimeUnit.SECONDS.toNanos(3);
    private static final long PACE_NS = 250_000; // ~4000 calls/s offered against 1000/s

    private enum Fault
    {
        KILL_9_AND_RESTART("kill -9, restart 1 s later (no persistence)"),
        SCRIPT_FLUSH("SCRIPT FLUSH"),
        DEBUG_SLEEP("DEBUG SLEEP 1"),
        CLIENT_KILL("CLIENT KILL of the limiter's connection"),
        MAXMEMORY("maxmemory 1 byte, noeviction, for 1 s"),
        FLUSHALL("FLUSHALL");

        final String text;

        Fault(final String text)
        {
            this.text = text;
        }
    }

    /** One call: caller time (us), code, whether Redis answered it. */
    private record Call(long nowUs, long code, boolean byRedis, long atNs)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        System.out.println("redis-server: " + RedisServer.binary() + " (major version " + RedisServer.majorVersion() + ")");
        System.out.println("limit " + LIMIT + "; timeout 50 ms; breaker defaults; one caller, ~4000 calls/s offered");
        System.out.println();
        System.out.println("| fault | policy | answers during the fault | recovery | admitted | over-admission |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        final java.util.Set<String> only = java.util.Set.of(args);
        for (final Fault fault : Fault.values())
        {
            if (!only.isEmpty() && !only.contains(fault.name()))
            {
                continue;
            }
            for (final FailPolicy policy : FailPolicy.values())
            {
                System.out.println(run(fault, policy, false));
            }
            System.out.println(run(fault, FailPolicy.LOCAL, true));
        }
    }

    private static String run(final Fault fault, final FailPolicy policy, final boolean spent) throws Exception
    {
        final RedisServer server = RedisServer.start();
        final RedisClient adminClient = server.client();
        final RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> admin = adminClient.connect(StringCodec.UTF8))
        {
            final RedisRateLimiterBuilder builder = RedisRateLimiter.builder(client, server.uri(), LIMIT, policy)
                .prefix("faults:");
            final RedisRateLimiter limiter = (spent ? builder.localInitialPermits(0) : builder).build();
            final List<Call> calls = new ArrayList<>(40_000);
            final long originNs = System.nanoTime();
            final long epochUs = System.currentTimeMillis() * 1000;
            final long[] marks = new long[2]; // fault start, fault end (System.nanoTime)
            final Thread injector = new Thread(() -> inject(fault, server, admin, marks));
            final long[] before = causes(limiter);
            injector.start();
            long nowNs;
            final long endNs = originNs + BEFORE_NS + FAULT_NS + AFTER_NS;
            while ((nowNs = System.nanoTime()) < endNs)
            {
                final long nowUs = epochUs + (nowNs - originNs) / 1000;
                final long trips = limiter.roundTrips();
                final long code = limiter.tryAcquire("hot", 1, nowUs * 1000);
                calls.add(new Call(nowUs, code, limiter.roundTrips() > trips, nowNs));
                LockSupport.parkNanos(PACE_NS);
            }
            injector.join();
            final long[] after = causes(limiter);
            limiter.close();
            return row(fault, spent ? "LOCAL, localInitialPermits(0)" : policy.toString(), calls, marks, before, after);
        }
        finally
        {
            client.shutdown();
            adminClient.shutdown();
            server.stop();
        }
    }

    private static long[] causes(final RedisRateLimiter limiter)
    {
        final FallbackCause[] all = FallbackCause.values();
        final long[] counts = new long[all.length + 1];
        for (int i = 0; i < all.length; i++)
        {
            counts[i] = limiter.fallbacks(all[i]);
        }
        counts[all.length] = limiter.keyErrors();
        return counts;
    }

    private static void inject(
        final Fault fault, final RedisServer server, final StatefulRedisConnection<String, String> admin, final long[] marks)
    {
        try
        {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(BEFORE_NS));
            final RedisCommands<String, String> sync = admin.sync();
            marks[0] = System.nanoTime();
            switch (fault)
            {
                case KILL_9_AND_RESTART ->
                {
                    server.stop(); // SIGKILL
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(FAULT_NS));
                    server.launch();
                }
                case SCRIPT_FLUSH -> sync.scriptFlush();
                case DEBUG_SLEEP -> sync.dispatch(io.lettuce.core.protocol.CommandType.DEBUG,
                    new io.lettuce.core.output.StatusOutput<>(StringCodec.UTF8),
                    new io.lettuce.core.protocol.CommandArgs<>(StringCodec.UTF8).add("SLEEP").add("1")); // returns after 1 s
                case CLIENT_KILL -> sync.clientKill(KillArgs.Builder.typeNormal().skipme());
                case MAXMEMORY ->
                {
                    sync.configSet("maxmemory-policy", "noeviction");
                    sync.configSet("maxmemory", "1");
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(FAULT_NS));
                    sync.configSet("maxmemory", "0");
                }
                case FLUSHALL -> sync.flushall();
            }
            marks[1] = System.nanoTime();
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(fault + ": " + ex, ex);
        }
    }

    private static String row(
        final Fault fault, final String policy, final List<Call> calls, final long[] marks, final long[] before,
        final long[] after)
    {
        // recovery: from the fault's end to the first call Redis answered that started after it
        long recoveredNs = -1;
        for (final Call call : calls)
        {
            if (call.atNs >= marks[1] && call.byRedis)
            {
                recoveredNs = call.atNs;
                break;
            }
        }
        final long duringEndNs = recoveredNs < 0 ? Long.MAX_VALUE : recoveredNs;
        int during = 0;
        int byRedis = 0;
        int admittedDuring = 0;
        for (final Call call : calls)
        {
            if (call.atNs >= marks[0] && call.atNs < duringEndNs)
            {
                during++;
                byRedis += call.byRedis ? 1 : 0;
                admittedDuring += Result.isAdmitted(call.code) ? 1 : 0;
            }
        }
        final StringBuilder answers = new StringBuilder();
        answers.append(during).append(" calls: ").append(byRedis).append(" by Redis");
        final FallbackCause[] all = FallbackCause.values();
        for (int i = 0; i < all.length; i++)
        {
            final long n = after[i] - before[i];
            if (n > 0)
            {
                answers.append(", ").append(n).append(' ').append(all[i]);
            }
        }
        if (after[all.length] > before[all.length])
        {
            answers.append(", ").append(after[all.length] - before[all.length]).append(" KEY_ERROR");
        }
        answers.append("; ").append(admittedDuring).append(" admitted");
        final String recovery = recoveredNs < 0 ? "not within 3 s" :
            String.format(Locale.ROOT, "%.0f ms", Math.max(0, recoveredNs - marks[1]) / 1e6);
        final long[] admitted = calls.stream().filter(c -> Result.isAdmitted(c.code)).mapToLong(c -> c.nowUs).toArray();
        final MicrosLimit limit = MicrosLimit.of(LIMIT);
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %d of %d | %+.2f |", fault.text, policy, answers,
            recovery, admitted.length, calls.size(), overAdmission(admitted, limit.emissionIntervalUs(), limit.toleranceUs()));
    }

    /**
     * The largest {@code count - (tau + T + L) / T} over every window [t_i, t_j] of the sorted admission times:
     * {@code max over i <= j of ((j - i + 1) T - (tau + T) - (t_j - t_i)) / T}, in one pass.
     */
    static double overAdmission(final long[] timesUs, final long tUs, final long tauUs)
    {
        long best = Long.MIN_VALUE;
        long bestStart = Long.MIN_VALUE; // max over i <= j of (t_i - i T)
        for (int j = 0; j < timesUs.length; j++)
        {
            bestStart = Math.max(bestStart, timesUs[j] - j * tUs);
            best = Math.max(best, bestStart + (j + 1) * tUs - timesUs[j] - (tauUs + tUs));
        }
        return timesUs.length == 0 ? 0 : (double)best / tUs;
    }
}
