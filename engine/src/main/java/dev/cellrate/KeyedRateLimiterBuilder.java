package dev.cellrate;

import dev.cellrate.check.Bounds;
import dev.cellrate.layout.CellArray;
import dev.cellrate.gcra.Gcra;
import dev.cellrate.ShaperMode;
import dev.cellrate.table.KeyHash;
import dev.cellrate.table.SlotTable;
import java.nio.file.Path;
import java.security.SecureRandom;

import dev.cellrate.table.TableLayout;
import dev.cellrate.table.mapped.MappedTable;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * Configuration of a {@link KeyedRateLimiter}; every value is checked in {@link #build()}, which throws
 * {@link IllegalArgumentException} naming the field and its allowed range.
 * <p>
 * Defaults: 2<sup>20</sup> slots (16 MiB, designed for {@link #DESIGNED_LOAD_PERCENT}% = 786,432 keys),
 * 64 shards (fewer for tables under 64 * 512 slots: as many as leave {@link #DEFAULT_PROBE_BOUND} slots per
 * shard, at least 1), probe bound 512 (or the shard size if smaller), {@link TableFullPolicy#REJECT}, idle
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

    /**
     * Default probe bound: with linear probing a bound of 128 refused about 1% of the last inserts into a table
     * sized exactly to its expected keys (75%, and a shard's share of the keys varies around it); at 512 the
     * chance that an insert at 75% load finds no free slot within the bound is about 10<sup>-9</sup>. A present
     * key is found at its home slot or next to it whatever the bound; only lookups of absent keys in a table
     * full of tombstones walk further.
     */
        public static final int DEFAULT_PROBE_BOUND = 512;

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
    long initialPermits = Long.MAX_VALUE;
    Path mappedFile;

    KeyedRateLimiterBuilder(final Limit limit)
    {
        Bounds.requireNonNull("limit", limit);
        this.limit = limit;
    }

    /**
     * @param slotCount total slots (the capacity), in [shardCount, {@link TableLayout#MAX_SLOTS}]; any count,
     *                  rounded up to a multiple of the shard count (16 bytes each).
     * @return this.
     */
    public KeyedRateLimiterBuilder slotCount(final int slotCount)
    {
        this.slotCount = slotCount;
        return this;
    }

    /**
     * Size the table for {@code keys} keys at the designed load: slots = keys * 100 /
     * {@link #DESIGNED_LOAD_PERCENT} rounded up (to a multiple of the shard count at build), i.e. about 21.3
     * bytes of slot per key at any key count (not the next power of two).
     *
     * @param keys expected keys, in [1, {@link TableLayout#MAX_SLOTS} * 3 / 4] (100 M keys fit).
     * @return this.
     */
    public KeyedRateLimiterBuilder expectedKeys(final int keys)
    {
        Bounds.requireRange("expectedKeys", keys, 1, (long)TableLayout.MAX_SLOTS * DESIGNED_LOAD_PERCENT / 100);
        this.slotCount = (int)(((long)keys * 100 + DESIGNED_LOAD_PERCENT - 1) / DESIGNED_LOAD_PERCENT);
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
     * The initial fill of every new key: a key seen for the first time (or again after its idle cell was
     * evicted) starts with {@code initialPermits} permits at the time of the request that inserts it, so that
     * many single permits are admitted before its first rejection (0 = empty, as Guava starts; at or above the
     * burst = full, the default). Applies to {@link #build()} and {@link #buildShaper}.
     *
     * @param initialPermits permits a new key starts with, &ge; 0.
     * @return this.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public KeyedRateLimiterBuilder initialPermits(final long initialPermits)
    {
        this.initialPermits = Bounds.requireRange("initialPermits", initialPermits, 0, Long.MAX_VALUE);
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
     * Keep the table in a file: it survives a restart, and every process of the host that builds a limiter on
     * the same file shares its keys, as NGINX's workers share a zone (see {@code docs/keyed-table.md}, "A table
     * in a mapped file"). A new file is created owner-only (0600: it holds the key-hash secret) and written in
     * full; an existing file is used only if it was made with the same limit, table-full policy, initial fill,
     * idle grace and table geometry, and otherwise refused with an error naming what differs. The clock must be
     * the system clock ({@link SystemNanoClock}, {@code CLOCK_MONOTONIC} on Linux): the file's words are its
     * values, the same for every process of one boot. Applies to every front of this builder, and the file
     * records which: a file is opened only by the kind of front that created it ({@link #build()},
     * {@link #buildReconfigurable()}, whose {@code setLimit} changes the file's limit for every process on it,
     * {@link #buildShaper}, or {@link #buildClassed}, whose classes' limits the file records; the classifier is
     * code, and must be the same in every process).
     *
     * @param path the file (its directory must exist).
     * @return this.
     */
    public KeyedRateLimiterBuilder mappedFile(final Path path)
    {
        this.mappedFile = Bounds.requireNonNull("mappedFile", path);
        return this;
    }

    /**
     * @return a new limiter with a preallocated table.
     * @throws IllegalArgumentException naming the field and its allowed range.
     * @throws IllegalStateException    with a {@link #mappedFile}: naming the file and what is wrong with it.
     */
    public KeyedRateLimiter build()
    {
        final int shards = validatedShardCount();
        final int slotsPerShard = validatedSlotsPerShard(shards);
        final int bound = validatedProbeBound(slotsPerShard);
        if (null != mappedFile)
        {
            final KeyedRateLimiter limiter =
                new KeyedRateLimiter(limit, policy, clock, openMapped(MappedTable.KEYED, limit).table());
            limiter.table().fillNewKeys(newKeyLagNs());
            return limiter;
        }
        final long[] secret = secret();
        final KeyedRateLimiter limiter = new KeyedRateLimiter(
            limit, policy, clock, shards, slotsPerShard, bound, idleGraceNs, secret[0], secret[1]);
        limiter.table().fillNewKeys(newKeyLagNs());
        return limiter;
    }

    /**
     * A keyed shaper with this builder's limit, table sizing, idle grace, key-hash secret and clock (the table-full
     * policy does not apply: a shaper with no cell for a key answers {@link Result#TABLE_FULL}).
     *
     * @param mode the shaper's mode.
     * @return the keyed shaper.
     * @throws IllegalArgumentException naming the field and its allowed range.
     * @throws IllegalStateException    with a {@link #mappedFile}: naming the file and what is wrong with it.
     */
    public KeyedShaper buildShaper(final ShaperMode mode)
    {
        Bounds.requireNonNull("mode", mode);
        if (null != mappedFile)
        {
            final SlotTable table = openMapped(MappedTable.SHAPER, limit).table();
            table.fillNewKeys(newKeyLagNs());
            return new KeyedShaper(limit, mode, table, clock);
        }
        return new KeyedShaper(limit, mode, newTable(true), clock);
    }

    /**
     * A keyed limiter with limit classes, on a table of its own: a key's class is chosen by {@code classifier}
     * when the key is inserted and stored with its cell. Class 0 is this builder's limit; {@code moreClasses}
     * are classes 1, 2, ... The table-full policy must be {@link TableFullPolicy#REJECT} or
     * {@link TableFullPolicy#ADMIT}; new keys start full (an initial fill other than full is refused, since it
     * would depend on the class).
     *
     * @param classifier  the class of a key at insert, in [0, 1 + moreClasses.length).
     * @param moreClasses the limits of classes 1, 2, ...; at most {@code shardCount - 3} of them.
     * @return the classed limiter.
     * @throws IllegalArgumentException naming the field and its allowed range.
     * @throws IllegalStateException    with a {@link #mappedFile}: naming the file and what is wrong with it.
     */
    public ClassedKeyedRateLimiter buildClassed(final KeyClassifier classifier, final Limit... moreClasses)
    {
        Bounds.requireNonNull("classifier", classifier);
        Bounds.requireNonNull("moreClasses", moreClasses);
        if (Long.MAX_VALUE != initialPermits)
        {
            throw new IllegalArgumentException("initialPermits must not be set for a classed limiter (new keys start " +
                "full) but was " + initialPermits);
        }
        final Limit[] limits = new Limit[1 + moreClasses.length];
        limits[0] = limit;
        System.arraycopy(moreClasses, 0, limits, 1, moreClasses.length);
        final int shards = validatedShardCount();
        final boolean valid = TableFullPolicy.OVERFLOW != policy && shards >= 4 &&
            limits.length <= Math.min(shards - 2, SlotTable.MAX_CLASSES);
        if (null != mappedFile && valid) // an invalid configuration is refused below, as for a table of its own
        {
            for (final Limit classLimit : moreClasses)
            {
                Bounds.requireNonNull("moreClasses[i]", classLimit);
            }
            return new ClassedKeyedRateLimiter(limits, classifier, openMapped(MappedTable.CLASSED, limits).table(),
                policy);
        }
        return new ClassedKeyedRateLimiter(limits, classifier, newTable(false), policy);
    }

    /**
     * A keyed limiter whose limit can be replaced at run time, on a table of its own, with this builder's
     * sizing, policy, initial fill, secret and clock. With a {@link #mappedFile}, the limit is the file's:
     * {@code setLimit} changes it for every process on the file, and every limiter on the file decides under it
     * from its next decision on; an opening with another limit than the file's is refused, naming both.
     *
     * @return the reconfigurable keyed limiter.
     * @throws IllegalArgumentException naming the field and its allowed range.
     * @throws IllegalStateException    with a {@link #mappedFile}: naming the file and what is wrong with it.
     */
    public ReconfigurableKeyedRateLimiter buildReconfigurable()
    {
        if (null != mappedFile)
        {
            final MappedTable mapped = openMapped(MappedTable.RECONFIGURABLE, limit);
            mapped.table().fillNewKeys(newKeyLagNs());
            return new ReconfigurableKeyedRateLimiter(limit, mapped.table(), policy, mapped.limit());
        }
        return new ReconfigurableKeyedRateLimiter(limit, newTable(true), policy);
    }

    /**
     * @param kind   the front's kind of table file.
     * @param limits every limit of the front, class 0 first.
     * @return the {@link #mappedFile}'s table, opened (or created) for this builder's configuration.
     */
    private MappedTable openMapped(final int kind, final Limit... limits)
    {
        final int shards = validatedShardCount();
        final int slotsPerShard = validatedSlotsPerShard(shards);
        final int bound = validatedProbeBound(slotsPerShard);
        if (!(clock instanceof SystemNanoClock))
        {
            throw new IllegalArgumentException("clock must be the system clock for a mappedFile table (its " +
                "words are System.nanoTime values, shared by the host's processes) but was " + clock);
        }
        final long[] limitsNs = new long[2 * limits.length];
        for (int i = 0; i < limits.length; i++)
        {
            limitsNs[2 * i] = limits[i].emissionIntervalNs();
            limitsNs[2 * i + 1] = limits[i].toleranceNs();
        }
        return MappedTable.open(mappedFile, kind, limitsNs, policy.ordinal(), shards, slotsPerShard, bound,
            idleGraceNs, newKeyLagNs(), secretFixed ? new long[] {secret0, secret1} : null, clock);
    }

    /**
     * @param fill whether new keys start at this builder's initial fill.
     * @return a table owned by the front about to be built.
     */
    private SlotTable newTable(final boolean fill)
    {
        final int shards = validatedShardCount();
        final int slotsPerShard = validatedSlotsPerShard(shards);
        final int bound = validatedProbeBound(slotsPerShard);
        final long[] secret = secret();
        final SlotTable table = new SlotTable(shards, slotsPerShard, bound, idleGraceNs, secret[0], secret[1], clock);
        if (fill)
        {
            table.fillNewKeys(newKeyLagNs());
        }
        return table;
    }

    /**
     * @return the lag a new key starts at: {@code &tau; + T - k T}, or 0 if it starts full.
     */
    private long newKeyLagNs()
    {
        final long tatNs = Gcra.initialFillTatNs(0, initialPermits, limit.emissionIntervalNs(), limit.ceilingNs());
        return CellArray.FRESH_TAT_NS == tatNs ? 0 : tatNs;
    }

    private long[] secret()
    {
        return secretFixed ? new long[] {secret0, secret1} : KeyHash.randomSecret(new SecureRandom());
    }

    private int validatedShardCount()
    {
        Bounds.requireNonNull("tableFullPolicy", policy);
        Bounds.requireNonNull("clock", clock);
        Bounds.requireRange("slotCount", slotCount, 1, TableLayout.MAX_SLOTS);
        final int shards = shardCountSet ? shardCount : defaultShardCount(slotCount);
        final int maxShards = Math.min(TableLayout.MAX_SHARDS, slotCount);
        Bounds.requireRange("shardCount", shards, 1, maxShards);
        if (Integer.bitCount(shards) != 1)
        {
            throw new IllegalArgumentException(
                "shardCount must be a power of two in [1, " + maxShards + "] but was " + shards);
        }
        return shards;
    }

    /**
     * slotCount rounded up to a multiple of the shard count, per shard; from 4 slots per shard on, also up to a
     * multiple of 4 (at most 3 slots more per shard) so that every shard starts on a cache line and each
     * 4-slot bucket is one line (the table's one-line lookup), unless that would pass the largest table.
     */
    private int validatedSlotsPerShard(final int shards)
    {
        final int slotsPerShard = (int)(((long)slotCount + shards - 1) / shards);
        if ((long)slotsPerShard * shards > TableLayout.MAX_SLOTS)
        {
            throw new IllegalArgumentException("slotCount rounded up to a multiple of shardCount must be in [1, " +
                TableLayout.MAX_SLOTS + "] but was " + (long)slotsPerShard * shards);
        }
        final int lineAligned = (slotsPerShard + 3) & ~3;
        return slotsPerShard > 3 && (long)lineAligned * shards <= TableLayout.MAX_SLOTS ? lineAligned : slotsPerShard;
    }

    private int validatedProbeBound(final int slotsPerShard)
    {
        final int bound = probeBoundSet ? probeBound : Math.min(DEFAULT_PROBE_BOUND, slotsPerShard);
        Bounds.requireRange("probeBound", bound, 1, slotsPerShard);
        return bound;
    }

    /**
     * @param slotCount total slots.
     * @return {@link #DEFAULT_SHARD_COUNT}, or fewer so that a shard keeps {@link #DEFAULT_PROBE_BOUND} slots,
     * at least 1.
     */
    static int defaultShardCount(final int slotCount)
    {
        return Math.max(1, Math.min(DEFAULT_SHARD_COUNT, Integer.highestOneBit(slotCount) / DEFAULT_PROBE_BOUND));
    }
}
