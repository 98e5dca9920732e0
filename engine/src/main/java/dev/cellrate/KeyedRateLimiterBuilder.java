package dev.cellrate;

import dev.cellrate.shaper.KeyedShaper;
import dev.cellrate.shaper.ShaperMode;
import dev.cellrate.table.KeyHash;
import dev.cellrate.table.SlotTable;
import java.security.SecureRandom;

import dev.cellrate.table.TableLayout;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * Configuration of a {@link KeyedRateLimiter}; every value is checked in {@link #build()}, which throws
 * {@link IllegalArgumentException} naming the field and its allowed range.
 * <p>
 * Defaults: 2<sup>20</sup> slots (16 MiB, designed for {@link #DESIGNED_LOAD_PERCENT}% = 786,432 keys),
 * 64 shards (fewer for tables under 64 * 128 slots: as many as leave {@link #DEFAULT_PROBE_BOUND} slots per
 * shard, at least 1), probe bound 128 (or the shard size if smaller), {@link TableFullPolicy#REJECT}, idle
 * grace 1 s, a random 128-bit key-hash secret from {@link SecureRandom}, {@link SystemNanoClock} (which also bounds the time
 * eviction uses: callers' {@code nowNs} must be on this clock).
 * <p>
 * Threading: a builder is used by one thread; the limiter it builds is thread-safe.
 */
public final class KeyedRateLimiterBuilder
{
    /** The load the defaults are designed for: keys / slots = 3/4, i.e. 21.3 bytes of slot per key. */
    public static final int DESIGNED_LOAD_PERCENT = 75;

    /** Default total slots. */
    public static final int DEFAULT_SLOT_COUNT = 1 << 20;

    /** Default shard count. */
    public static final int DEFAULT_SHARD_COUNT = 64;

    /** Default probe bound. */
    public static final int DEFAULT_PROBE_BOUND = 128;

    /** Default idle grace: 1 s. */
    public static final long DEFAULT_IDLE_GRACE_NS = 1_000_000_000L;

    final Limit limit;
    int slotCount = DEFAULT_SLOT_COUNT;
    int shardCount = DEFAULT_SHARD_COUNT;
    boolean shardCountSet;
    int probeBound = DEFAULT_PROBE_BOUND;
    boolean probeBoundSet;
    TableFullPolicy policy = TableFullPolicy.REJECT;
    long idleGraceNs = DEFAULT_IDLE_GRACE_NS;
    long secret0;
    long secret1;
    boolean secretFixed;
    NanoClock clock = SystemNanoClock.INSTANCE;

    KeyedRateLimiterBuilder(final Limit limit)
    {
        if (null == limit)
        {
            throw new IllegalArgumentException("limit must not be null");
        }
        this.limit = limit;
    }

    /**
     * @param slotCount total slots (the capacity), a power of two in [shardCount, 2<sup>26</sup>].
     * @return this.
     */
    public KeyedRateLimiterBuilder slotCount(final int slotCount)
    {
        this.slotCount = slotCount;
        return this;
    }

    /**
     * Size the table for {@code keys} keys at the designed load: slots = the power of two &ge;
     * keys * 100 / {@link #DESIGNED_LOAD_PERCENT}.
     *
     * @param keys expected keys, in [1, 2<sup>26</sup> * 3 / 4].
     * @return this.
     */
    public KeyedRateLimiterBuilder expectedKeys(final int keys)
    {
        Bounds.requireRange("expectedKeys", keys, 1, (long)TableLayout.MAX_SLOTS * DESIGNED_LOAD_PERCENT / 100);
        final long slots = ((long)keys * 100 + DESIGNED_LOAD_PERCENT - 1) / DESIGNED_LOAD_PERCENT;
        this.slotCount = (int)Math.max(1, Long.highestOneBit(slots - 1) << 1);
        return this;
    }

    /**
     * @param shardCount shards, a power of two in [1, min(2<sup>16</sup>, slotCount)].
     * @return this.
     */
    public KeyedRateLimiterBuilder shardCount(final int shardCount)
    {
        this.shardCount = shardCount;
        this.shardCountSet = true;
        return this;
    }

    /**
     * @param probeBound most slots probed per lookup or insert, in [1, slotCount / shardCount].
     * @return this.
     */
    public KeyedRateLimiterBuilder probeBound(final int probeBound)
    {
        this.probeBound = probeBound;
        this.probeBoundSet = true;
        return this;
    }

    /**
     * @param policy what a new key gets when the table is full.
     * @return this.
     */
    public KeyedRateLimiterBuilder tableFullPolicy(final TableFullPolicy policy)
    {
        this.policy = policy;
        return this;
    }

    /**
     * @param idleGraceNs a key with TAT &le; now - idleGraceNs is idle and may be evicted, in
     *                    [1, 2<sup>62</sup>]; must exceed the skew between concurrent callers' nowNs.
     * @return this.
     */
    public KeyedRateLimiterBuilder idleGraceNs(final long idleGraceNs)
    {
        this.idleGraceNs = idleGraceNs;
        return this;
    }

    /**
     * Fix the key-hash secret to {@code (seed, seed)}: for tests and reproducible placement only. A fixed secret
     * <b>weakens the table against chosen keys</b>: anyone who knows it can compute key words offline and
     * pick keys that share a victim's cell or crowd one shard. Leave it random in production (the default).
     *
     * @param seed the fixed seed.
     * @return this.
     */
    public KeyedRateLimiterBuilder seed(final long seed)
    {
        return seed(seed, seed);
    }

    /**
     * Fix the 128-bit key-hash secret (SipHash's {@code k0, k1}), e.g. to share placement between processes.
     * Same warning as {@link #seed(long)}: only as strong as the secrecy of the two words.
     *
     * @param secret0 the secret's first word.
     * @param secret1 the secret's second word.
     * @return this.
     */
    public KeyedRateLimiterBuilder seed(final long secret0, final long secret1)
    {
        this.secret0 = secret0;
        this.secret1 = secret1;
        this.secretFixed = true;
        return this;
    }

    /**
     * @param clock the clock of the {@code *Now} overloads, and the bound of the time eviction uses
     *              (min(nowNs, clock)): callers' {@code nowNs} must be on this clock (or behind it).
     * @return this.
     */
    public KeyedRateLimiterBuilder clock(final NanoClock clock)
    {
        this.clock = clock;
        return this;
    }

    /**
     * @return a new limiter with a preallocated table.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public KeyedRateLimiter build()
    {
        final int shards = validatedShardCount();
        final int bound = validatedProbeBound(shards);
        final long[] secret = secret();
        return new KeyedRateLimiter(limit, policy, clock, shards, slotCount, bound, idleGraceNs, secret[0], secret[1]);
    }

    /**
     * A keyed shaper with this builder's limit, table sizing, idle grace, key-hash secret and clock (the table-full
     * policy does not apply: a shaper with no cell for a key answers {@link Result#TABLE_FULL}).
     *
     * @param mode the shaper's mode.
     * @return the keyed shaper.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public KeyedShaper buildShaper(final ShaperMode mode)
    {
        if (null == mode)
        {
            throw new IllegalArgumentException("mode must not be null");
        }
        final int shards = validatedShardCount();
        final int bound = validatedProbeBound(shards);
        final long[] secret = secret();
        return new KeyedShaper(limit, mode,
            new SlotTable(shards, slotCount / shards, bound, idleGraceNs, secret[0], secret[1], clock), clock);
    }

    private long[] secret()
    {
        return secretFixed ? new long[] {secret0, secret1} : KeyHash.randomSecret(new SecureRandom());
    }

    private int validatedShardCount()
    {
        if (null == policy || null == clock)
        {
            throw new IllegalArgumentException("tableFullPolicy and clock must not be null");
        }
        Bounds.requireRange("slotCount", slotCount, 1, TableLayout.MAX_SLOTS);
        final int shards = shardCountSet ? shardCount : defaultShardCount(slotCount);
        Bounds.requireRange("shardCount", shards, 1, Math.min(TableLayout.MAX_SHARDS, slotCount));
        if (Integer.bitCount(slotCount) != 1 || Integer.bitCount(shards) != 1)
        {
            throw new IllegalArgumentException("slotCount and shardCount must be powers of two but were " +
                slotCount + " and " + shards);
        }
        return shards;
    }

    private int validatedProbeBound(final int shards)
    {
        final int bound = probeBoundSet ? probeBound : Math.min(DEFAULT_PROBE_BOUND, slotCount / shards);
        Bounds.requireRange("probeBound", bound, 1, slotCount / shards);
        return bound;
    }

    /**
     * @param slotCount total slots, a power of two.
     * @return {@link #DEFAULT_SHARD_COUNT}, or fewer so that a shard keeps {@link #DEFAULT_PROBE_BOUND} slots,
     * at least 1.
     */
    static int defaultShardCount(final int slotCount)
    {
        return Math.max(1, Math.min(DEFAULT_SHARD_COUNT, Integer.highestOneBit(slotCount) / DEFAULT_PROBE_BOUND));
    }
}
