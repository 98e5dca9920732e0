package dev.cellrate;

/**
 * The primitive result codes every cellrate decision returns (Aeron {@code Publication.offer} style).
 * <ul>
 *     <li>{@link #ADMITTED} ({@code 0}): the request conforms and was charged.</li>
 *     <li>a positive value: rejected; the number of ns after {@code nowNs} at which the same request would
 *     first conform if nothing else is admitted meanwhile (a Retry-After). Never 0 for a rejection.</li>
 *     <li>{@link #NEVER} ({@code -1}): rejected; the request can never conform: its cost is outside
 *     [1, burst], or {@code nowNs} is so close to {@link Long#MAX_VALUE} that the new TAT cannot be
 *     represented.</li>
 *     <li>{@link #TABLE_FULL} ({@code -2}): rejected by a keyed limiter because no cell could be claimed for
 *     the key (table-full policy {@code REJECT}).</li>
 *     <li>{@link #CONCURRENCY_FULL} ({@code -3}): rejected by a concurrency limit: the in-flight count is at
 *     its maximum (no retry-after can be computed; it depends on releases).</li>
 *     <li>{@link #QUEUE_FULL} ({@code -4}): a shaper's release runner had no room for the item.</li>
 *     <li>{@link #CLOSED} ({@code -5}): the component was closed; nothing was charged.</li>
 * </ul>
 * Codes {@code -1 .. -15} are shared by every component and are all rejections. Codes {@code <= -16} belong
 * to one front and are defined there: {@code KeyedRateLimiter}'s table-full outcomes (one of which, the
 * fail-open {@code ADMITTED_TABLE_FULL}, is an admission: use {@code KeyedRateLimiter.isAdmitted}), and the
 * shaper's encoded retry-after ({@code ShaperResult}). Codes are stable across releases.
 */
public final class Result
{
    /** The request conforms and was charged. */
    public static final long ADMITTED = 0;

    /** The request can never conform (cost outside [1, burst], or time at the edge of the long range). */
    public static final long NEVER = -1;

    /** A keyed limiter found no cell for the key and its policy is to reject. */
    public static final long TABLE_FULL = -2;

    /** A concurrency limit is at its maximum in-flight count. */
    public static final long CONCURRENCY_FULL = -3;

    /** A bounded queue (the shaper's release runner) had no room. */
    public static final long QUEUE_FULL = -4;

    /** The component was closed; nothing was charged. */
    public static final long CLOSED = -5;

    private Result()
    {
    }

    /**
     * @param code a result code.
     * @return true iff {@code code} is {@link #ADMITTED}.
     */
    public static boolean isAdmitted(final long code)
    {
        return ADMITTED == code;
    }

    /**
     * @param code a result code.
     * @return a short constant name for logs: the constant's name, "RETRY_AFTER" for a positive code, or "UNKNOWN".
     */
    public static String name(final long code)
    {
        if (ADMITTED == code)
        {
            return "ADMITTED";
        }
        if (code > 0)
        {
            return "RETRY_AFTER";
        }
        if (NEVER == code)
        {
            return "NEVER";
        }
        if (TABLE_FULL == code)
        {
            return "TABLE_FULL";
        }
        if (CONCURRENCY_FULL == code)
        {
            return "CONCURRENCY_FULL";
        }
        if (QUEUE_FULL == code)
        {
            return "QUEUE_FULL";
        }
        return CLOSED == code ? "CLOSED" : "UNKNOWN";
    }
}
