package dev.cellrate.stat;

/**
 * The statistics kept per limiter. Decision outcomes ({@link #isOutcome()}) partition the decisions: each
 * recorded decision adds 1 to exactly one of them, on the recording thread's stripe. The others are sampled
 * by a {@link StatSampler} from statistics the table, shaper and release agent already keep (no cost on the
 * decision path); cumulative ones ({@link #isCumulative()}) get a rate in the stat tool, the rest are levels.
 */
public enum StatKind
{
    /** Admitted by the limit. */
    ADMITTED("admitted", true, true),
    /** Rejected by the limit with a retry-after. */
    REJECTED("rejected", true, true),
    /** Rejected: the cost can never fit ({@code Result.NEVER}). */
    NEVER_FIT("never-fit", true, true),
    /** Rejected because a keyed table had no cell for the key (REJECT policy, or overflow cell rejected). */
    TABLE_FULL_REJECTED("table-full-rejected", true, true),
    /** Admitted although a keyed table had no cell for the key (ADMIT policy, or overflow cell admitted). */
    TABLE_FULL_ADMITTED("table-full-admitted", true, true),
    /** Rejected for another reason: concurrency full, queue full, closed. */
    OTHER_REJECTED("other-rejected", true, true),
    /** Dry-run: the limit rejected but the request was let through (would have rejected). */
    WOULD_REJECT("would-reject", true, true),
    /** Sampled: keys holding a slot. */
    LIVE_KEYS("live-keys", false, false),
    /** Sampled: idle keys reclaimed. */
    EVICTIONS("evictions", false, true),
    /** Sampled: requests that found the table full (the table's own count). */
    TABLE_FULL_EVENTS("table-full-events", false, true),
    /** Sampled: failed TAT CASes. */
    CAS_RETRIES("cas-retries", false, true),
    /** Sampled: shaper backlog in permits (delay queued ahead of a new request / emission interval). */
    QUEUE_DEPTH("queue-depth", false, false),
    /** Sampled: items outstanding in a release agent (queued or scheduled). */
    RELEASE_OUTSTANDING("release-outstanding", false, false),
    /** Sampled: items released by a release agent. */
    RELEASED("released", false, true),
    /** Sampled: largest release lateness seen, ns. */
    MAX_LATENESS_NS("max-lateness-ns", false, false),
    /** A top-rejected-keys sketch: the counter's value is the sketch's offset in the sketch region. */
    TOP_KEYS("top-rejected-keys", false, false),
    /** Hits ({@link HitStats}): every hit decided, in permits (a request's cost), whatever the outcome. */
    TOTAL_HITS("total-hits", false, true),
    /** Hits: the hits the limit refused, including those a shadow mode let through. */
    OVER_LIMIT("over-limit", false, true),
    /** Hits: the admitted hits above the near-limit share of the limit's capacity. */
    NEAR_LIMIT("near-limit", false, true),
    /** Hits: the hits the limit admitted. */
    WITHIN_LIMIT("within-limit", false, true),
    /** Hits: the hits the limit refused that a shadow mode let through. */
    SHADOW_MODE("shadow-mode", false, true);

    /** Type ids are {@code TYPE_ID_BASE + ordinal()}. */
    static final int TYPE_ID_BASE = 0x4352_0000;

    private static final StatKind[] VALUES = values();

    private final String label;
    private final boolean outcome;
    private final boolean cumulative;

    StatKind(final String label, final boolean outcome, final boolean cumulative)
    {
        this.label = label;
        this.outcome = outcome;
        this.cumulative = cumulative;
    }

    /**
     * @return the label used in the counter label, by the stat tool and as a meter tag.
     */
    public String label()
    {
        return label;
    }

    /**
     * @return true for a decision outcome (striped, recorded on the decision path).
     */
    public boolean isOutcome()
    {
        return outcome;
    }

    /**
     * @return true for a count of hits ({@link HitStats}: striped, added to on the decision path by the cost).
     */
    boolean isHits()
    {
        return ordinal() >= TOTAL_HITS.ordinal();
    }

    /**
     * @return true if the value only grows (a count), so a rate per second is meaningful.
     */
    public boolean isCumulative()
    {
        return cumulative;
    }

    /**
     * @return this kind's Agrona counter type id.
     */
    int typeId()
    {
        return TYPE_ID_BASE + ordinal();
    }

    /**
     * @param typeId an Agrona counter type id.
     * @return the kind, or null if the counter is not a cellrate statistic.
     */
    static StatKind ofTypeId(final int typeId)
    {
        final int index = typeId - TYPE_ID_BASE;
        return index >= 0 && index < VALUES.length ? VALUES[index] : null;
    }
}
