package dev.cellrate.stat;

import dev.cellrate.Result;
import dev.cellrate.tcm.Colour;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.CountersReader;

/**
 * The counters of one limiter in a {@link StatFile}: its decision outcomes, striped so that concurrent
 * deciders do not write one cache line, its sampled statistics, and optionally its top rejected keys.
 * <p>
 * Recording: after a decision, pass its code to {@link #record(long)} (or {@link #record(long, long)} with the
 * key word, which also feeds the top-keys sketch on a rejection; {@link #recordReservation(long)} for a shaper's
 * or a concurrency limit's code). Each call adds 1 to exactly one outcome counter (see {@link Outcome}) on the calling thread's stripe
 * (threads get stripes round-robin, {@link ThreadStripe}): one uncontended atomic add on a counter alone on
 * its 128-byte slot, no allocation. Two threads share a stripe only when more threads than stripes record;
 * the add stays exact then, just contended. Readers sum the stripes.
 * <p>
 * Dry-run: {@link #dryRun(long)} records the real outcome and turns a rejection into
 * {@link Result#WOULD_HAVE_REJECTED} (counted again as {@link StatKind#WOULD_REJECT}), so the counters say
 * exactly what enforcing would have done.
 * <p>
 * Threading: record methods from any thread; {@link #gauge(StatKind)} writers (a {@link StatSampler}) from one
 * thread per gauge.
 */
public final class LimiterStats
{
    /** Outcome kinds: a limiter has this many counters per stripe. */
    static final int OUTCOMES = StatKind.WOULD_REJECT.ordinal() + 1;

    private final StatFile file;
    private final String name;
    private final int limiterId;
    private final AtomicBuffer values;
    private final int stripeMask;
    private final int stripeShift;
    /** Values-buffer offset of outcome {@code kind} on stripe {@code s}: {@code [kind << stripeShift | s]}. */
    private final int[] outcomeOffsets;
    private final int[] gaugeIds = new int[StatKind.values().length];
    private final TopKeys topKeys;
    /** Top-keys sampling: a rejection feeds the sketch iff the top bits of its hashed count are zero. */
    private final int sampleShift;
    private final long sampleWeight;

    LimiterStats(
        final StatFile file, final String name, final int limiterId, final int stripes, final TopKeys topKeys,
        final int topKeysSampleEvery)
    {
        this.sampleWeight = topKeysSampleEvery;
        this.sampleShift = Long.SIZE - Integer.numberOfTrailingZeros(topKeysSampleEvery);
        this.file = file;
        this.name = name;
        this.limiterId = limiterId;
        this.values = file.valuesBuffer();
        this.stripeMask = stripes - 1;
        this.stripeShift = Integer.numberOfTrailingZeros(stripes);
        this.topKeys = topKeys;
        this.outcomeOffsets = new int[OUTCOMES << stripeShift];
        for (int kind = 0; kind < OUTCOMES; kind++)
        {
            for (int s = 0; s < stripes; s++)
            {
                final int counterId = file.allocate(StatKind.values()[kind], name, limiterId, s, stripes);
                outcomeOffsets[kind << stripeShift | s] = CountersReader.counterOffset(counterId);
            }
        }
        java.util.Arrays.fill(gaugeIds, CountersReader.NULL_COUNTER_ID);
    }

    /**
     * Count a policing decision's outcome.
     *
     * @param code the code the limiter returned.
     * @return {@code code}, unchanged.
     */
    public long record(final long code)
    {
        increment(Outcome.kindOf(code));
        return code;
    }

    /**
     * Count a policing decision's outcome and, if it is a rejection, its key in the top-keys sketch.
     *
     * @param key     the key: a long key, or {@link TopKeys#keyOf(CharSequence)} of a text key.
     * @param code    the code the limiter returned.
     * @return {@code code}, unchanged.
     */
    public long record(final long key, final long code)
    {
        recordKeyed(key, Outcome.kindOf(code));
        return code;
    }

    /**
     * Count a reservation's outcome (a shaper's {@code reserve}: a delay &ge; 0 when admitted), or a concurrency
     * limit's {@code tryAcquire} (a ticket &ge; 0 when admitted).
     *
     * @param code the code.
     * @return {@code code}, unchanged.
     */
    public long recordReservation(final long code)
    {
        increment(Outcome.kindOfReservation(code));
        return code;
    }

    /**
     * Dry-run: count the outcome as {@link #record(long)} does, and never reject.
     *
     * @param code the code the limiter returned (a rejection charged nothing, so the limiter's state is what
     *             it would be if enforced).
     * @return {@code code} if it is an admission, else {@link Result#WOULD_HAVE_REJECTED}.
     */
    public long dryRun(final long code)
    {
        return dryRun(0, Outcome.kindOf(code), code, false);
    }

    /**
     * Dry-run with a key: as {@link #dryRun(long)}, feeding the top-keys sketch with would-be rejections.
     *
     * @param key     the key, as {@link #record(long, long)} takes it.
     * @param code    the code the limiter returned.
     * @return {@code code} if it is an admission, else {@link Result#WOULD_HAVE_REJECTED}.
     */
    public long dryRun(final long key, final long code)
    {
        return dryRun(key, Outcome.kindOf(code), code, true);
    }

    private long dryRun(final long key, final int kind, final long code, final boolean keyed)
    {
        final int stripe = ThreadStripe.current();
        final long before = increment(kind, stripe);
        if (Outcome.isAdmission(kind))
        {
            return code;
        }
        increment(StatKind.WOULD_REJECT.ordinal(), stripe);
        if (keyed && null != topKeys && sampled(before))
        {
            topKeys.add(key, stripe, sampleWeight);
        }
        return Result.WOULD_HAVE_REJECTED;
    }

    /**
     * Dry-run of a reservation (a shaper's {@code reserve}) or of a concurrency limit's {@code tryAcquire}:
     * counts as {@link #recordReservation(long)}; an admission (a delay or a ticket, {@code >= 0}) is returned
     * unchanged, a rejection becomes {@link Result#WOULD_HAVE_REJECTED} (counted in {@link StatKind#WOULD_REJECT}
     * too). A rejected reservation charged nothing, so the front's state is exactly the enforced one's.
     *
     * @param code the reservation code.
     * @return {@code code} if admitted, else {@link Result#WOULD_HAVE_REJECTED}.
     */
    public long dryRunReservation(final long code)
    {
        return dryRun(0, Outcome.kindOfReservation(code), code, false);
    }

    /**
     * Dry-run of a reservation with a key: as {@link #dryRunReservation(long)}, feeding the top-keys sketch with
     * would-be rejections.
     *
     * @param key     the key, as {@link #record(long, long)} takes it.
     * @param code    the reservation code.
     * @return {@code code} if admitted, else {@link Result#WOULD_HAVE_REJECTED}.
     */
    public long dryRunReservation(final long key, final long code)
    {
        return dryRun(key, Outcome.kindOfReservation(code), code, true);
    }

    /**
     * Count a reservation's outcome with its key (the top-keys sketch on a rejection).
     *
     * @param key     the key, as {@link #record(long, long)} takes it.
     * @param code    the reservation code.
     * @return {@code code}, unchanged.
     */
    public long recordReservation(final long key, final long code)
    {
        recordKeyed(key, Outcome.kindOfReservation(code));
        return code;
    }

    private void recordKeyed(final long key, final int kind)
    {
        final int stripe = ThreadStripe.current();
        final long before = increment(kind, stripe);
        if (null != topKeys && !Outcome.isAdmission(kind) && sampled(before))
        {
            topKeys.add(key, stripe, sampleWeight);
        }
    }

    /**
     * Count a marker's colour: GREEN and YELLOW as admitted (a policer forwards them), RED as rejected (a
     * policer drops it).
     *
     * @param colour a {@code dev.cellrate.tcm.Colour}.
     * @return {@code colour}, unchanged.
     */
    public int recordColour(final int colour)
    {
        increment(Outcome.kindOfColour(colour));
        return colour;
    }

    /**
     * Dry-run of a marker: counts as {@link #recordColour(int)}; RED (what a policer would drop) is counted in
     * {@link StatKind#WOULD_REJECT} too and answered YELLOW (forwarded, still marked out of profile). The
     * marker's state is its own (a RED packet takes no tokens), so the counters are exactly the enforced ones.
     *
     * @param colour the colour the marker gave.
     * @return {@code colour}, with RED turned into YELLOW.
     */
    public int dryRunColour(final int colour)
    {
        final int kind = Outcome.kindOfColour(colour);
        final int stripe = ThreadStripe.current();
        increment(kind, stripe);
        if (Outcome.isAdmission(kind))
        {
            return colour;
        }
        increment(StatKind.WOULD_REJECT.ordinal(), stripe);
        return Colour.YELLOW;
    }

    private void increment(final int kind)
    {
        increment(kind, ThreadStripe.current());
    }

    /**
     * @return the stripe's count before the add (the sampling clock of the top-keys sketch).
     */
    private long increment(final int kind, final int stripe)
    {
        return values.getAndAddLong(outcomeOffsets[kind << stripeShift | (stripe & stripeMask)], 1);
    }

    /**
     * Whether the rejection that found its counter at {@code before} feeds the sketch: the top bits of
     * {@code before} times the 64-bit golden ratio are zero, one count in {@code sampleWeight}. A Weyl sequence,
     * so the samples of a stripe are equidistributed over its stream and no periodic key pattern aliases with
     * them (an every-n-th sample would see only one key of a round robin of n keys); no state, no extra write.
     */
    private boolean sampled(final long before)
    {
        return 1 == sampleWeight || (before * 0x9E37_79B9_7F4A_7C15L) >>> sampleShift == 0;
    }

    /**
     * How many rejections one top-keys sample stands for. With {@code w > 1}, a keyed rejection that finds its
     * stripe's outcome counter at {@code c} (before its add) feeds the sketch with weight {@code w} iff the top
     * {@code log2(w)} bits of {@code c * 0x9E3779B97F4A7C15} are zero (see {@code sampled}). So, per stripe and
     * outcome counter: the first rejection ({@code c = 0}) is sampled; consecutive samples are one of three
     * Fibonacci numbers apart, the largest below {@code 2w} (three-gap theorem; for {@code w = 8}: 5, 8 or 13),
     * so any {@code 2w} consecutive counts include a sample, and a key rejected {@code 2w} times in a row on one
     * stripe is added to the sketch at least once; the sketch's total weight after {@code n} rejections of a stripe is
     * {@code w * samples}, within {@code n} &plusmn; {@code 5w} for every {@code n <= 2^20} (computed for each
     * allowed {@code w}). Every count and error in the sketch is a multiple of {@code w}; the outcome counters
     * stay exact.
     *
     * @return the weight of one sample (1: every rejection is added, exact Space-Saving).
     */
    long topKeysSampleEvery()
    {
        return sampleWeight;
    }

    /**
     * @param kind an outcome kind.
     * @return the sum of its stripes (a reader's view).
     */
    public long outcome(final StatKind kind)
    {
        if (!kind.isOutcome())
        {
            throw new IllegalArgumentException("not an outcome: " + kind);
        }
        long sum = 0;
        for (int s = 0; s <= stripeMask; s++)
        {
            sum += values.getLongVolatile(outcomeOffsets[kind.ordinal() << stripeShift | s]);
        }
        return sum;
    }

    /**
     * The counter of a sampled statistic, allocated on first use (not on a decision path).
     *
     * @param kind a sampled kind.
     * @return its counter id.
     */
    synchronized int gauge(final StatKind kind)
    {
        if (kind.isOutcome() || StatKind.TOP_KEYS == kind || kind.isHits())
        {
            throw new IllegalArgumentException("not a sampled statistic: " + kind);
        }
        if (CountersReader.NULL_COUNTER_ID == gaugeIds[kind.ordinal()])
        {
            gaugeIds[kind.ordinal()] = file.allocate(kind, name, limiterId, 0, 1);
        }
        return gaugeIds[kind.ordinal()];
    }

    /**
     * Set a sampled statistic (single writer per gauge).
     *
     * @param counterId the counter from {@link #gauge(StatKind)}.
     * @param value     the value.
     */
    void set(final int counterId, final long value)
    {
        values.putLongRelease(CountersReader.counterOffset(counterId), value);
    }

    /**
     * @return the top rejected keys sketch, or null if this limiter has none.
     */
    public TopKeys topKeys()
    {
        return topKeys;
    }

    /**
     * @return the limiter's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the limiter's id in its file.
     */
    int limiterId()
    {
        return limiterId;
    }

    /**
     * @return stripes per outcome.
     */
    int stripes()
    {
        return stripeMask + 1;
    }
}
