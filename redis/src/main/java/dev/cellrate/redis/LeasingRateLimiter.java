package dev.cellrate.redis;

import static dev.cellrate.redis.Checks.requireRange;

import dev.cellrate.Decision;
import dev.cellrate.Result;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two tiers: a Redis cell per key shared by the fleet, and in each process a local lease per key that is
 * spent at in-process speed.
 * <p>
 * Algorithm: a request that finds no unexpired local lease with enough permits goes to Redis, where the same
 * script decides it and, if it conforms, also <em>leases</em> up to {@code k} further emission intervals in
 * the same round trip, advancing the Redis TAT by {@code (n + granted) * T'} atomically (granted is the most
 * that still conforms, at most k). Later requests in this process spend the lease locally (one CAS) until it
 * runs out or expires after {@code leaseTtlNs}. One thread per key per process renews at a time (others meanwhile
 * decide plainly on Redis), and it drops what is left of the old lease before asking, never returning it.
 * <p>
 * Bound: every permit admitted anywhere was charged to the Redis TAT, so over the whole run the fleet
 * admits no more than one Redis cell would. Over a shorter window a permit can be spent later than it was
 * charged (by at most {@code leaseTtlNs}), so the permits admitted in any window exceed the GCRA bound by at
 * most the permits leased before the window and unspent at its start: at most {@code min(k, b - 1)} per process
 * per key. Across P processes: over-admission &le; P &middot; min(k, b - 1) per key, measured in
 * {@code docs/distributed.md}. The price is the same amount of under-admission when leases expire unspent.
 * <p>
 * Time: local leases expire on the local clock ({@link System#nanoTime()}) for calls on server time, or on
 * the caller's {@code nowNs}. When Redis cannot decide, the {@link RedisRateLimiter}'s fail policy answers.
 * <p>
 * Concurrency: any thread. A local admission is a map lookup and one CAS; it allocates nothing. The lease
 * map holds at most about {@code maxKeys} keys: expired leases are swept when it grows past that.
 */
public final class LeasingRateLimiter
{
    private final RedisRateLimiter redis;
    private final long leaseIntervals;
    private final long leaseTtlNs;
    private final int maxKeys;
    private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();
    private final AtomicLong localAdmissions = new AtomicLong();
    private final AtomicLong leasesTaken = new AtomicLong();
    private final AtomicLong permitsLeased = new AtomicLong();

    /**
     * One key's local tier. {@code left} is written last when a lease is installed and read after
     * {@code expiresAtNs} when spent; one thread at a time (the winner of {@code renewing}) renews, and it
     * zeroes {@code left} before asking Redis, so at any instant at most one lease per key per process holds
     * permits that were charged to Redis and not yet spent.
     */
    static final class Lease
    {
        final AtomicLong left = new AtomicLong();
        final AtomicBoolean renewing = new AtomicBoolean();
        volatile long expiresAtNs;
    }

    /**
     * @param redis          the shared tier: its connection, prefix, limit and fail policy.
     * @param leaseIntervals k: emission intervals leased per round trip, in [1, 2^20].
     * @param leaseTtlNs     how long a lease may be spent, in [1 ms, 1 h].
     * @param maxKeys        leases kept before expired ones are swept, in [1, 2^26].
     */
    public LeasingRateLimiter(
        final RedisRateLimiter redis, final long leaseIntervals, final long leaseTtlNs, final int maxKeys)
    {
        if (null == redis)
        {
            throw new IllegalArgumentException("redis must not be null");
        }
        this.redis = redis;
        this.leaseIntervals = requireRange("leaseIntervals", leaseIntervals, 1, 1 << 20);
        this.leaseTtlNs = requireRange("leaseTtlNs", leaseTtlNs, 1_000_000, 3_600_000_000_000L);
        this.maxKeys = (int)requireRange("maxKeys", maxKeys, 1, 1 << 26);
    }

    /**
     * Decide on the server's time (Redis) and the local clock (leases).
     *
     * @param key     the key.
     * @param permits the cost; outside [1, burst] it is {@link Result#NEVER}.
     * @return as {@link RedisRateLimiter#tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits)
    {
        return decide(key, permits, RedisRateLimiter.SERVER_TIME, System.nanoTime(), null);
    }

    /**
     * Decide on the caller's time for both tiers.
     *
     * @param key      the key.
     * @param permits  the cost.
     * @param nowNs    ns since the Unix epoch.
     * @param decision a caller-owned holder or null; after a local admission it holds {@code remaining} = the
     *                 permits left in the lease and {@code resetAfterNs} = 0 (unknown locally).
     * @return as {@link RedisRateLimiter#tryAcquire(CharSequence, long)}.
     */
    public long tryAcquire(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        final long nowUs = MicrosLimit.toMicros(nowNs);
        if (nowUs < 0)
        {
            return redis.verdicts.never(0, decision);
        }
        return decide(key, permits, nowUs, nowNs, decision);
    }

    private long decide(
        final CharSequence key, final long permits, final long nowUs, final long localNowNs, final Decision decision)
    {
        final long incrementUs = redis.limit.incrementUs(permits);
        if (incrementUs < 1)
        {
            return redis.verdicts.never(nowUs, decision);
        }
        final String mapKey = key.toString();
        Lease lease = leases.get(mapKey);
        if (null != lease && localNowNs - lease.expiresAtNs < 0)
        {
            final AtomicLong left = lease.left;
            long have;
            while ((have = left.get()) >= permits)
            {
                if (left.compareAndSet(have, have - permits))
                {
                    localAdmissions.incrementAndGet();
                    if (null != decision)
                    {
                        decision.setOutcome(Result.ADMITTED, have - permits, 0, redis.limit.burst());
                    }
                    return Result.ADMITTED;
                }
            }
        }
        if (null == lease)
        {
            if (leases.size() >= maxKeys)
            {
                sweep(localNowNs);
            }
            final Lease fresh = new Lease();
            final Lease raced = leases.putIfAbsent(mapKey, fresh);
            lease = null == raced ? fresh : raced;
        }
        final byte[] redisKey = redis.redisKey(key);
        if (!lease.renewing.compareAndSet(false, true))
        {
            // another thread of this process is renewing: decide this one plainly (no lease)
            return redis.verdicts.answer(redis.link.call(redisKey, incrementUs, 0, nowUs), redisKey, permits, nowUs, decision);
        }
        try
        {
            lease.left.set(0); // drop what is left: never two leases with permits at once
            final ScriptReply reply = redis.link.call(redisKey, incrementUs, leaseIntervals, nowUs);
            if (!reply.decided())
            {
                return redis.verdicts.answer(reply, redisKey, permits, nowUs, decision);
            }
            if (reply.admitted())
            {
                leasesTaken.incrementAndGet();
                permitsLeased.addAndGet(reply.granted);
                lease.expiresAtNs = localNowNs + leaseTtlNs;
                lease.left.set(reply.granted);
            }
            return redis.verdicts.fromReply(reply, decision);
        }
        finally
        {
            lease.renewing.set(false);
        }
    }

    private void sweep(final long nowNs)
    {
        sweepPass(nowNs, false);
        if (leases.size() >= maxKeys)
        {
            sweepPass(nowNs, true); // dropping leases only ever under-admits
        }
    }

    private void sweepPass(final long nowNs, final boolean all)
    {
        for (final Iterator<Map.Entry<String, Lease>> it = leases.entrySet().iterator(); it.hasNext(); )
        {
            final Lease lease = it.next().getValue();
            if ((all || nowNs - lease.expiresAtNs >= 0 || 0 == lease.left.get()) &&
                lease.renewing.compareAndSet(false, true))
            {
                lease.left.set(0); // a caller still holding it can spend nothing more
                it.remove();
            }
        }
    }

    /**
     * @return k.
     */
    public long leaseIntervals()
    {
        return leaseIntervals;
    }

    /**
     * @return the published bound on over-admission per key per process: {@code min(k, b - 1)} permits.
     */
    public long overAdmissionBoundPerProcess()
    {
        return Math.min(leaseIntervals, redis.limit.burst() - 1);
    }

    /**
     * @return requests admitted from a local lease (no round trip).
     */
    public long localAdmissions()
    {
        return localAdmissions.get();
    }

    /**
     * @return round trips that admitted (each also leased up to k intervals).
     */
    public long leasesTaken()
    {
        return leasesTaken.get();
    }

    /**
     * @return permits leased in total beyond the requests that took the leases.
     */
    public long permitsLeased()
    {
        return permitsLeased.get();
    }

    /**
     * @return the shared tier.
     */
    public RedisRateLimiter redis()
    {
        return redis;
    }
}
