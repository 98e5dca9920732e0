package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.KeyedLimiter;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.ReconfigurableKeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.http.RateLimitFields;
import dev.cellrate.redis.RedisRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Reservation;
import dev.cellrate.stat.LimiterStats;
import org.agrona.concurrent.NanoClock;
import org.springframework.expression.Expression;

/**
 * One configured limit, ready to decide: its front (the engine's keyed table, or Redis), its counters, and
 * the header values it advertises. Built by {@link LimitRegistry}; the web filters, the gateway limiter and
 * {@code @RateLimited} read it.
 * <p>
 * Threading: immutable after construction; the fronts are thread-safe.
 */
public final class NamedLimit
{
    /** Header names. */
    public static final String RETRY_AFTER = "Retry-After";
    public static final String RATELIMIT_POLICY = "RateLimit-Policy";
    public static final String RATELIMIT = "RateLimit";
    public static final String X_RATELIMIT_LIMIT = "X-RateLimit-Limit";
    public static final String X_RATELIMIT_REMAINING = "X-RateLimit-Remaining";
    public static final String X_RATELIMIT_RESET = "X-RateLimit-Reset";
    public static final String X_RATELIMIT_DRY_RUN = "X-RateLimit-Dry-Run";
    public static final String WOULD_REJECT = "would-reject";

    /** Slots of refused string keys remembered by name for the top rejected keys (a power of two). */
    public static final int MAX_NAMED_KEYS = 4096;

    final String name;
    private final String policyName;
    private volatile Policy policy;
    final LimitMode mode;
    final boolean filter;
    final HeaderStyle headers;
    final boolean headersOnAdmitted;
    final KeySource keySource;
    final String keyHeader;
    final int trustedHops;
    final int ipv6Prefix;
    final String variable;
    final Expression expression;
    final String fallback;
    final RequestMatch match;
    final KeyedRateLimiter local;
    /** What enforce and dry-run decide on: {@link #local}, or a front whose limit can change at run time. */
    final KeyedLimiter decider;
    final RedisRateLimiter redis;
    final KeyedShaper shaper;
    final long maxDelayNs;
    final boolean[] chargeStatuses;
    final String costHeader;
    final LimiterStats stats;
    final NanoClock clock;
    /** Refused string keys by {@code keyWord & (MAX_NAMED_KEYS - 1)}: the first one seen keeps its slot. */
    private final java.util.concurrent.atomic.AtomicReferenceArray<String> rejectedKeyNames =
        new java.util.concurrent.atomic.AtomicReferenceArray<>(MAX_NAMED_KEYS);

    NamedLimit(final Builder b)
    {
        this.name = b.name;
        this.policyName = b.policyName;
        this.policy = new Policy(b.policyName, b.limit);
        this.mode = b.mode;
        this.filter = b.filter;
        this.headers = b.headers;
        this.headersOnAdmitted = b.headersOnAdmitted;
        this.keySource = b.keySource;
        this.keyHeader = b.keyHeader;
        this.trustedHops = b.trustedHops;
        this.ipv6Prefix = b.ipv6Prefix;
        this.variable = b.variable;
        this.expression = b.expression;
        this.fallback = b.fallback;
        this.match = b.match;
        this.local = b.local;
        this.decider = null != b.decider ? b.decider : b.local;
        this.redis = b.redis;
        this.shaper = b.shaper;
        this.maxDelayNs = b.maxDelayNs;
        this.chargeStatuses = b.chargeStatuses;
        this.costHeader = b.costHeader;
        this.stats = b.stats;
        this.clock = b.clock;
    }

    /**
     * @return the limit's name (its key under {@code cellrate.limits}).
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the GCRA limit.
     */
    public Limit limit()
    {
        return policy.limit;
    }

    /**
     * @return the {@code RateLimit-Policy} value.
     */
    public String policyValue()
    {
        return policy.policyValue;
    }

    /**
     * @return whether the rate can change at run time.
     */
    public boolean reconfigurable()
    {
        return decider instanceof ReconfigurableKeyedRateLimiter;
    }

    /**
     * @return the keys the limit's local table holds now, or -1 for a Redis or shaped limit.
     */
    public long liveKeys()
    {
        if (null != local)
        {
            return local.liveKeys();
        }
        if (decider instanceof ReconfigurableKeyedRateLimiter)
        {
            return ((ReconfigurableKeyedRateLimiter)decider).liveKeys();
        }
        return decider instanceof dev.cellrate.ClassedKeyedRateLimiter ?
            ((dev.cellrate.ClassedKeyedRateLimiter)decider).liveKeys() : -1;
    }

    /**
     * Change the limit of every key, each keeping its state, and advertise it.
     *
     * @param limit the new limit.
     * @throws IllegalArgumentException if this limit is not reconfigurable.
     */
    synchronized void setLimit(final Limit limit)
    {
        if (!(decider instanceof ReconfigurableKeyedRateLimiter))
        {
            throw new IllegalArgumentException("cellrate.limits." + name + ".reconfigurable must be true to change " +
                "its rate at run time");
        }
        ((ReconfigurableKeyedRateLimiter)decider).setLimit(limit);
        advertise(limit);
    }

    /**
     * Advertise a new limit (after the front's own limit changed).
     *
     * @param limit the new limit.
     */
    void advertise(final Limit limit)
    {
        this.policy = new Policy(policyName, limit);
    }

    /**
     * @return the mode.
     */
    public LimitMode mode()
    {
        return mode;
    }

    /**
     * @return the engine's keyed front, or null for a Redis-backed limit.
     */
    public KeyedRateLimiter local()
    {
        return local;
    }

    /**
     * @return the Redis front, or null for a local limit.
     */
    public RedisRateLimiter redis()
    {
        return redis;
    }

    /**
     * @return the counters (outcomes and top rejected keys).
     */
    public LimiterStats stats()
    {
        return stats;
    }

    /**
     * @return the header style.
     */
    public HeaderStyle headers()
    {
        return headers;
    }

    /**
     * @return where keys come from.
     */
    public KeySource keySource()
    {
        return keySource;
    }

    /**
     * @return the clock local decisions read.
     */
    public NanoClock clock()
    {
        return clock;
    }

    /**
     * @return the field formatter of this limit's policy.
     */
    public RateLimitFields fields()
    {
        return policy.fields;
    }

    /**
     * Decide a long key locally (a {@link Decision} is filled when headers are wanted).
     */
    long decideLocal(final long key, final long permits, final long nowNs, final Decision decision)
    {
        final long code = null == decision ?
            decider.tryAcquire(key, permits, nowNs) : decider.tryAcquire(key, permits, nowNs, decision);
        return count(key, code);
    }

    long decideLocal(final CharSequence key, final long permits, final long nowNs, final Decision decision)
    {
        final long code = null == decision ?
            decider.tryAcquire(key, permits, nowNs) : decider.tryAcquire(key, permits, nowNs, decision);
        if (Result.isAdmitted(code) && LimitMode.DRY_RUN != mode)
        {
            return stats.record(code);
        }
        return countString(key, code);
    }

    /**
     * Count a decision on a string key; a refused key's text is remembered (in one of {@link #MAX_NAMED_KEYS}
     * slots, the first key to land in a slot keeps it) so the top rejected keys can be shown by name. A
     * {@code String} key is kept as it is: nothing is allocated.
     */
    long countString(final CharSequence key, final long code)
    {
        final long keyWord = keyWord(key);
        if (!Result.isAdmitted(code))
        {
            final int slot = (int)keyWord & (MAX_NAMED_KEYS - 1);
            if (null == rejectedKeyNames.get(slot))
            {
                rejectedKeyNames.compareAndSet(slot, null, key.toString());
            }
        }
        return count(keyWord, code);
    }

    /**
     * @param keyWord a key word of the top-keys sketch.
     * @return the key's text or address, for people.
     */
    public String keyName(final long keyWord)
    {
        final String name = rejectedKeyNames.get((int)keyWord & (MAX_NAMED_KEYS - 1));
        if (null != name && keyWord(name) == keyWord)
        {
            return name;
        }
        if (KeySource.ADDRESS == keySource || KeySource.FORWARDED == keySource)
        {
            return ClientAddress.toString(keyWord);
        }
        return "#" + Long.toHexString(keyWord);
    }

    /**
     * Count a decision's outcome (and its key when rejected); in dry-run a rejection becomes
     * {@link Result#WOULD_HAVE_REJECTED}.
     */
    long count(final long keyWord, final long code)
    {
        if (LimitMode.DRY_RUN == mode)
        {
            return stats.dryRun(keyWord, code);
        }
        return Result.isAdmitted(code) ? stats.record(code) : stats.record(keyWord, code);
    }

    /**
     * Fill {@code decision} for a rejection decided without one: a single permit rejected with retry-after
     * {@code r} has lag {@code r + tau} and nothing remaining (the engine's GCRA identities).
     */
    void fillRejected(final long code, final long permits, final Decision decision)
    {
        final Limit limit = policy.limit;
        if (code > 0)
        {
            final long lagNs = code + limit.toleranceNs() + limit.emissionIntervalNs() -
                permits * limit.emissionIntervalNs();
            decision.setOutcome(code, 0, Math.max(0, lagNs), limit.burst());
        }
        else
        {
            decision.setOutcome(code, 0, 0, limit.burst());
        }
    }

    boolean wantsDecision()
    {
        return headersOnAdmitted && HeaderStyle.NONE != headers;
    }

    /**
     * Write the header fields of a decision into {@code out} (names and values, allocating only the value
     * strings the web APIs take).
     *
     * @param decision the decision (its code says admitted or not).
     * @param rejected whether the request is refused (a Retry-After is then written).
     * @param wouldReject whether a dry-run limit would have refused it.
     * @param out      the per-thread scratch.
     * @return the number of fields written.
     */
    int headerFields(final Decision decision, final boolean rejected, final boolean wouldReject, final Scratch out)
    {
        int n = 0;
        final byte[] v = out.value;
        final Policy policy = this.policy;
        final RateLimitFields fields = policy.fields;
        if (rejected && Long.MAX_VALUE != decision.retryAfterNs() && decision.retryAfterNs() > 0)
        {
            n = out.put(n, RETRY_AFTER, RateLimitFields.writeDelaySeconds(decision.retryAfterNs(), v, 0));
        }
        if (wouldReject)
        {
            out.names[n] = X_RATELIMIT_DRY_RUN;
            out.values[n++] = WOULD_REJECT;
        }
        if (!rejected && !headersOnAdmitted)
        {
            return n;
        }
        if (HeaderStyle.IETF == headers)
        {
            out.names[n] = RATELIMIT_POLICY;
            out.values[n++] = policy.policyValue;
            n = out.put(n, RATELIMIT, fields.writeRateLimit(decision, v, 0));
        }
        else if (HeaderStyle.LEGACY == headers)
        {
            out.names[n] = X_RATELIMIT_LIMIT;
            out.values[n++] = policy.legacyLimitValue;
            n = out.put(n, X_RATELIMIT_REMAINING, fields.writeLegacyRemaining(decision, v, 0));
            n = out.put(n, X_RATELIMIT_RESET, fields.writeLegacyReset(decision, v, 0));
        }
        return n;
    }

    /**
     * @param key a string key.
     * @return the 64-bit FNV-1a hash of its UTF-16 chars: the number the counters' top-keys sketch shows for it.
     */
    public static long keyWord(final CharSequence key)
    {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0, length = key.length(); i < length; i++)
        {
            hash = (hash ^ key.charAt(i)) * 0x100000001b3L;
        }
        return hash;
    }

    public String toString()
    {
        return "NamedLimit{" + name + ", " + policy.limit + ", " + mode + ", " + (null == redis ? "local" : "redis") + '}';
    }

    /** What a limit advertises: its GCRA parameters and the header values derived from them (immutable). */
    private static final class Policy
    {
        final Limit limit;
        final RateLimitFields fields;
        final String policyValue;
        final String legacyLimitValue;

        Policy(final String name, final Limit limit)
        {
            this.limit = limit;
            this.fields = new RateLimitFields(name, limit);
            final byte[] v = new byte[fields.maxValueLength()];
            this.policyValue = new String(v, 0, fields.writePolicy(v, 0), java.nio.charset.StandardCharsets.ISO_8859_1);
            this.legacyLimitValue =
                new String(v, 0, fields.writeLegacyLimit(v, 0), java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    /** The per-thread scratch of one decision: holders and the header fields written. */
    public static final class Scratch
    {
        final Decision decision = new Decision();
        final Reservation reservation = new Reservation();
        final byte[] value = new byte[256];
        final String[] names = new String[8];
        final String[] values = new String[8];
        final CharSequence[] lines = new CharSequence[16];
        long longKey;
        CharSequence stringKey;

        int put(final int n, final String name, final int length)
        {
            names[n] = name;
            values[n] = new String(value, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1);
            return n + 1;
        }

        /**
         * @return the decision holder.
         */
        public Decision decision()
        {
            return decision;
        }
    }

    static final class Builder
    {
        String name;
        Limit limit;
        LimitMode mode;
        boolean filter;
        HeaderStyle headers;
        boolean headersOnAdmitted;
        KeySource keySource;
        String keyHeader;
        int trustedHops;
        int ipv6Prefix;
        String variable;
        Expression expression;
        String fallback;
        RequestMatch match;
        String policyName;
        KeyedRateLimiter local;
        KeyedLimiter decider;
        RedisRateLimiter redis;
        KeyedShaper shaper;
        long maxDelayNs;
        boolean[] chargeStatuses;
        String costHeader;
        LimiterStats stats;
        NanoClock clock;
    }
}
