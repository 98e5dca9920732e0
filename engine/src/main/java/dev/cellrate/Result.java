package dev.cellrate;

import dev.cellrate.gcra.Gcra;

/**
 * Every result code any cellrate front returns, in one code space (Aeron {@code Publication.offer} style):
 * one class owns the codes, the ranges are disjoint, and one {@link #name(long)} names them.
 * <p>
 * <b>Two conventions</b>, one per kind of call, stated here once:
 * <ul>
 *     <li><b>A decision</b> ({@code tryAcquire} of every {@link Limiter} and {@link KeyedLimiter}, the
 *     composites, {@code peek}, {@code debit}) answers {@link #ADMITTED} ({@code 0}) or, when rejected, a
 *     positive <em>retry-after</em> in ns: the time after {@code nowNs} at which the same request would first
 *     conform if nothing else is admitted meanwhile (never 0 for a rejection); or one of the negative codes
 *     below. Read it with {@link #isAdmitted(long)}.</li>
 *     <li><b>A reservation</b> ({@code reserve} of a {@link Reserver} or {@link KeyedReserver}) answers, when
 *     admitted, a <em>delay</em> in ns ({@code >= 0}, 0 = go now; release at {@code nowNs + delay}); when
 *     rejected, a negative code: a shared one, or a retry-after {@code r} encoded in the
 *     {@link #ENCODED_RETRY_AFTER_BASE encoded range} (decode with {@link #decodeRetryAfterNs(long)}).
 *     Read it with {@link #isReserved(long)}.</li>
 * </ul>
 * A concurrency limit's {@code tryAcquire} answers a ticket ({@code >= 0}) or {@link #CONCURRENCY_FULL}.
 * <p>
 * <b>Ranges</b> of negative codes (stable across releases):
 * <pre>
 *   [-1, -15]         SHARED: rejections any front may return: NEVER, TABLE_FULL, CONCURRENCY_FULL,
 *                     QUEUE_FULL, CLOSED
 *   [-16, -31]        KEYED: a keyed front's table-full outcomes (ADMITTED_TABLE_FULL and ADMITTED_OVERFLOW
 *                     are admissions: the fail-open policies; REJECTED_OVERFLOW is a rejection)
 *   [-32, -47]        OPERATING: WOULD_HAVE_REJECTED, the admission of a limiter run in dry-run
 *                     (dev.cellrate.stat.LimiterStats#dryRun)
 *   [-48, -63]        DISTRIBUTED: a shared-store front's fail policy when the store cannot answer
 *                     (ADMITTED_FAIL_OPEN is an admission; REJECTED_FAIL_CLOSED and REJECTED_KEY_ERROR are
 *                     rejections; cellrate-redis)
 *   [-64, -1023]      reserved for future fronts; never returned today
 *   [MIN, -1024]      ENCODED_RETRY_AFTER: a reservation's rejection with retry-after
 *                     r = ENCODED_RETRY_AFTER_BASE - code (&ge; 1 ns)
 * </pre>
 */
public final class Result
{
    /** The request conforms and was charged. */
    public static final long ADMITTED = Gcra.ADMITTED;

    /** First (highest) code of the shared range. */
    static final long SHARED_RANGE_FIRST = -1;

    /** The request can never conform (cost outside [1, burst], or time at the edge of the long range). */
    public static final long NEVER = Gcra.NEVER;

    /** A keyed front found no cell for the key and its policy is to reject. */
    public static final long TABLE_FULL = -2;

    /** A concurrency limit is at its maximum in-flight count. */
    public static final long CONCURRENCY_FULL = -3;

    /** A bounded queue (the shaper's release runner) had no room. */
    public static final long QUEUE_FULL = -4;

    /** The component was closed; nothing was charged. */
    public static final long CLOSED = -5;

    /** Last (lowest) code of the shared range. */
    static final long SHARED_RANGE_LAST = -15;

    /** First (highest) code of the keyed range. */
    static final long KEYED_RANGE_FIRST = -16;

    /**
     * A keyed front found no cell for the key and its policy is to admit (fail open, uncharged): an admission.
     */
    public static final long ADMITTED_TABLE_FULL = -16;

    /** A keyed front found no cell and admitted against the shared overflow cell (policy OVERFLOW_CELL). */
    public static final long ADMITTED_OVERFLOW = -17;

    /** A keyed front found no cell and the shared overflow cell rejected (policy OVERFLOW_CELL). */
    public static final long REJECTED_OVERFLOW = -18;

    /** Last (lowest) code of the keyed range. */
    static final long KEYED_RANGE_LAST = -31;

    /** First (highest) code of the operating range. */
    static final long OPERATING_RANGE_FIRST = -32;

    /**
     * Dry-run: the limit rejected, the request goes through anyway (an admission); the rejection was counted.
     */
    public static final long WOULD_HAVE_REJECTED = -32;

    /** Last (lowest) code of the operating range. */
    static final long OPERATING_RANGE_LAST = -47;

    /** First (highest) code of the distributed range. */
    static final long DISTRIBUTED_RANGE_FIRST = -48;

    /**
     * A shared-store front (cellrate-redis) could not reach its store within its timeout and its fail policy is
     * OPEN: the request goes through undecided (an admission), and the fallback was counted.
     */
    public static final long ADMITTED_FAIL_OPEN = -48;

    /**
     * A shared-store front could not reach its store within its timeout and its fail policy is CLOSED: rejected
     * with no retry-after (it depends on the store coming back).
     */
    public static final long REJECTED_FAIL_CLOSED = -49;

    /**
     * A shared-store front answered about one key alone (e.g. Redis: the key holds another type, or a value that is
     * not a TAT): rejected with no retry-after, until the key is repaired; never a fallback, never a failure of
     * the store (cellrate-redis).
     */
    public static final long REJECTED_KEY_ERROR = -50;

    /** Last (lowest) code of the distributed range. */
    static final long DISTRIBUTED_RANGE_LAST = -63;

    /**
     * A reservation rejected with retry-after {@code r} ns (&ge; 1) answers {@code ENCODED_RETRY_AFTER_BASE - r},
     * so every encoded code is &le; {@code -1024}.
     */
    public static final long ENCODED_RETRY_AFTER_BASE = -1023;

    /** Largest encodable retry-after; larger ones (clock centuries backwards) are clamped down to it. */
    public static final long MAX_ENCODED_RETRY_AFTER_NS = Long.MAX_VALUE + ENCODED_RETRY_AFTER_BASE + 1;

    private Result()
    {
    }

    /**
     * Admission under the decision convention (every {@code tryAcquire}, {@code peek}, {@code debit}).
     *
     * @param code a decision code.
     * @return true iff {@code code} admits: {@link #ADMITTED}, {@link #ADMITTED_TABLE_FULL},
     * {@link #ADMITTED_OVERFLOW}, {@link #WOULD_HAVE_REJECTED} (dry-run) or {@link #ADMITTED_FAIL_OPEN}.
     */
    public static boolean isAdmitted(final long code)
    {
        return ADMITTED == code || ADMITTED_TABLE_FULL == code || ADMITTED_OVERFLOW == code ||
            WOULD_HAVE_REJECTED == code || ADMITTED_FAIL_OPEN == code;
    }

    /**
     * Admission under the reservation convention (every {@code reserve}).
     *
     * @param code a reservation code.
     * @return true iff admitted: the code is then the delay in ns ({@code >= 0}).
     */
    public static boolean isReserved(final long code)
    {
        return code >= 0;
    }

    /**
     * @param code a reservation code.
     * @return true iff a rejection carrying an encoded retry-after.
     */
    public static boolean isEncodedRetryAfter(final long code)
    {
        return code < ENCODED_RETRY_AFTER_BASE;
    }

    /**
     * @param code a reservation code.
     * @return the retry-after in ns (&ge; 1) if {@link #isEncodedRetryAfter(long)}, else 0.
     */
    public static long decodeRetryAfterNs(final long code)
    {
        return code < ENCODED_RETRY_AFTER_BASE ? ENCODED_RETRY_AFTER_BASE - code : 0;
    }

    /**
     * @param retryAfterNs a retry-after &ge; 1 ns.
     * @return its reservation code, &le; {@code ENCODED_RETRY_AFTER_BASE - 1}; clamped at
     * {@link #MAX_ENCODED_RETRY_AFTER_NS}.
     */
    public static long encodeRetryAfter(final long retryAfterNs)
    {
        return ENCODED_RETRY_AFTER_BASE - Math.min(retryAfterNs, MAX_ENCODED_RETRY_AFTER_NS);
    }

    /**
     * A constant name for logs, correct for every front. Every negative code has one name whatever the front;
     * a positive code is "POSITIVE_NS": a retry-after under the decision convention, a delay under the
     * reservation convention (the caller knows which call it made).
     *
     * @param code a result code.
     * @return the constant's name, "ENCODED_RETRY_AFTER", "POSITIVE_NS", "RESERVED" for an unassigned code of
     * the reserved range, or "UNASSIGNED" for an unassigned code of the shared or keyed range.
     */
    public static String name(final long code)
    {
        if (code > 0)
        {
            return "POSITIVE_NS";
        }
        if (code < ENCODED_RETRY_AFTER_BASE)
        {
            return "ENCODED_RETRY_AFTER";
        }
        if (code < DISTRIBUTED_RANGE_LAST)
        {
            return "RESERVED";
        }
        switch ((int)code)
        {
            case (int)ADMITTED:
                return "ADMITTED";
            case (int)NEVER:
                return "NEVER";
            case (int)TABLE_FULL:
                return "TABLE_FULL";
            case (int)CONCURRENCY_FULL:
                return "CONCURRENCY_FULL";
            case (int)QUEUE_FULL:
                return "QUEUE_FULL";
            case (int)CLOSED:
                return "CLOSED";
            case (int)ADMITTED_TABLE_FULL:
                return "ADMITTED_TABLE_FULL";
            case (int)ADMITTED_OVERFLOW:
                return "ADMITTED_OVERFLOW";
            case (int)REJECTED_OVERFLOW:
                return "REJECTED_OVERFLOW";
            case (int)WOULD_HAVE_REJECTED:
                return "WOULD_HAVE_REJECTED";
            case (int)ADMITTED_FAIL_OPEN:
                return "ADMITTED_FAIL_OPEN";
            case (int)REJECTED_FAIL_CLOSED:
                return "REJECTED_FAIL_CLOSED";
            case (int)REJECTED_KEY_ERROR:
                return "REJECTED_KEY_ERROR";
            default:
                return "UNASSIGNED";
        }
    }
}
