package dev.cellrate.gcra;

/**
 * The shaping step after a GCRA admission, as pure functions over {@code long}s (no memory, no atomics).
 * <p>
 * Algorithm: a queueing leaky bucket is a GCRA meter plus a postponement [1]. A request at {@code t} that
 * conforms on the TAT it saw ({@link Gcra#conforms}) takes the <em>slot</em> {@code max(t, TAT)}: the time
 * at which it would have arrived had the source kept the contract exactly, and the cell moves on to
 * {@link Gcra#nextTatNs}. Consecutive slots are therefore at least {@code n * T} apart, and a slot is never
 * later than {@code t + &tau;} (conformance means {@code lag + n * T <= &tau; + T}).
 * <p>
 * Modes (NGINX {@code ngx_http_limit_req_account}, [2]): NGINX keeps {@code excess}, the lag
 * {@code max(t, TAT) - t} in thousandths of a request after paying for this one, and delays a request by
 * {@code (excess - delay) / rate} when {@code excess > delay}, else not at all. In ns this is
 * {@code wait = lag - N * T} if {@code lag > N * T}, else 0 (N = {@code delay=}, 0 by default, "infinite" for
 * {@code nodelay}). {@link #delayNs} computes exactly that, with {@code N * T} precomputed (saturated).
 * <p>
 * References: [1] ATM Forum TM 4.0 (af-tm-0056.000) annex C; Le Boudec &amp; Thiran, Network Calculus, 1.2.
 * [2] nginx 1.26.2 {@code src/http/modules/ngx_http_limit_req_module.c}.
 */
public final class ShaperMath
{
    private ShaperMath()
    {
    }

    /**
     * @param tatBeforeNs the TAT the admission was decided on.
     * @param nowNs       the time of the request.
     * @return the slot {@code max(t, TAT)}: the release time in {@link dev.cellrate.ShaperMode#delay()} mode.
     */
    public static long slotNs(final long tatBeforeNs, final long nowNs)
    {
        return Math.max(tatBeforeNs, nowNs);
    }

    /**
     * @param tatBeforeNs the TAT the admission was decided on.
     * @param nowNs       the time of the request.
     * @param immediateNs {@code N * T} of the mode (0 for delay, {@link Long#MAX_VALUE} for nodelay).
     * @return the delay from {@code nowNs} to the release: {@code max(0, lag - N * T)} where
     * {@code lag = max(0, TAT - t)}; in [0, slot - t].
     */
    public static long delayNs(final long tatBeforeNs, final long nowNs, final long immediateNs)
    {
        // lag and N * T are both in [0, Long.MAX_VALUE]: the difference cannot overflow.
        return Math.max(Gcra.lagNs(tatBeforeNs, nowNs) - immediateNs, 0);
    }
}
