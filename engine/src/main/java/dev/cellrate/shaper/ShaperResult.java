package dev.cellrate.shaper;

import dev.cellrate.Result;

/**
 * The one primitive a shaper's {@code reserve} returns, and how to read it. Allocation-free, unambiguous:
 * <ul>
 *     <li>{@code code >= 0}: admitted; the delay in ns from {@code nowNs} until the request may go
 *     ({@code 0} = go now). Release time = {@code nowNs + code} (never overflows: it is at most the slot).</li>
 *     <li>{@link Result#NEVER} ({@code -1}): rejected, can never conform (cost outside [1, burst], or the new
 *     TAT is not representable). {@link Result#TABLE_FULL}, {@link Result#QUEUE_FULL},
 *     {@link Result#CLOSED} ({@code -2}, {@code -4}, {@code -5}) where the front says so. Nothing is charged.</li>
 *     <li>{@code code <= }{@link #RETRY_AFTER_BASE}{@code  - 1} ({@code -17} or less): rejected, retry after
 *     {@code RETRY_AFTER_BASE - code} ns (&ge; 1). Nothing is charged.</li>
 * </ul>
 * Codes {@code -6 .. -16} are reserved and never returned. Any negative code is a rejection, so "go now"
 * ({@code 0}) can never be read as a rejection.
 */
public final class ShaperResult
{
    /** A rejection with retry-after {@code r} ns is encoded as {@code RETRY_AFTER_BASE - r}. */
    public static final long RETRY_AFTER_BASE = -16;

    /** Largest encodable retry-after; larger ones (clock centuries backwards) are clamped down to it. */
    public static final long MAX_RETRY_AFTER_NS = Long.MAX_VALUE + RETRY_AFTER_BASE + 1;

    private ShaperResult()
    {
    }

    /**
     * @param code a shaper code.
     * @return true iff admitted ({@code code >= 0}; the code is then the delay in ns).
     */
    public static boolean isAdmitted(final long code)
    {
        return code >= 0;
    }

    /**
     * @param code a shaper code.
     * @return true iff a rejection carrying a retry-after.
     */
    public static boolean isRetryAfter(final long code)
    {
        return code < RETRY_AFTER_BASE;
    }

    /**
     * @param code a shaper code.
     * @return the retry-after in ns (&ge; 1) if {@link #isRetryAfter(long)}, else 0.
     */
    public static long retryAfterNs(final long code)
    {
        return code < RETRY_AFTER_BASE ? RETRY_AFTER_BASE - code : 0;
    }

    /**
     * @param retryAfterNs a retry-after &ge; 1 ns.
     * @return its rejection code, &le; {@code RETRY_AFTER_BASE - 1}; clamped at {@link #MAX_RETRY_AFTER_NS}.
     */
    public static long encodeRetryAfter(final long retryAfterNs)
    {
        return RETRY_AFTER_BASE - Math.min(retryAfterNs, MAX_RETRY_AFTER_NS);
    }

    /**
     * @param code a shaper code.
     * @return a short constant name for logs: "DELAY" for an admission, "RETRY_AFTER", or the {@link Result} name.
     */
    public static String name(final long code)
    {
        if (code >= 0)
        {
            return "DELAY";
        }
        return code < RETRY_AFTER_BASE ? "RETRY_AFTER" : Result.name(code);
    }
}
