package dev.cellrate.translate;

/**
 * What NGINX {@code limit_req} does with an admitted request after the decision: its {@code delay=}/
 * {@code nodelay} parameter, as the number of excess requests forwarded at once.
 * <ul>
 *     <li>{@link #delay()}: the default (no parameter, same as {@code delay=0}): every admitted request is
 *     held until its theoretical arrival time {@code max(t, TAT)} (pure shaping).</li>
 *     <li>{@link #delay(long)}: {@code delay=N}: the first N excess requests go at once, later ones are held
 *     for their excess beyond N (NGINX 1.15.7+).</li>
 *     <li>{@link #nodelay()}: every admitted request goes at once (policing only).</li>
 * </ul>
 * The admission decision is the same GCRA in all three modes; only the hold time differs (see
 * {@link NginxLimitReq#holdNs(long, long)}).
 *
 * @param immediateExcess excess requests forwarded without delay: 0 for {@code delay}, N for
 *                        {@code delay=N}, {@link Long#MAX_VALUE} for {@code nodelay}.
 */
public record NginxDelay(long immediateExcess)
{
    private static final NginxDelay DELAY = new NginxDelay(0);
    private static final NginxDelay NODELAY = new NginxDelay(Long.MAX_VALUE);

    /**
     * @param immediateExcess in [0, {@link Long#MAX_VALUE}].
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public NginxDelay
    {
        Range.require("immediateExcess", immediateExcess, 0, Long.MAX_VALUE);
    }

    /**
     * @return the default mode (shape every excess request; {@code delay=0}).
     */
    public static NginxDelay delay()
    {
        return DELAY;
    }

    /**
     * @param excessRequests N of {@code delay=N}, &ge; 0.
     * @return the mode forwarding the first N excess requests at once.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static NginxDelay delay(final long excessRequests)
    {
        Range.require("delay", excessRequests, 0, Long.MAX_VALUE - 1);
        return 0 == excessRequests ? DELAY : new NginxDelay(excessRequests);
    }

    /**
     * @return {@code nodelay}: no shaping at all.
     */
    public static NginxDelay nodelay()
    {
        return NODELAY;
    }

    /**
     * @return true for {@code nodelay}.
     */
    public boolean isNodelay()
    {
        return Long.MAX_VALUE == immediateExcess;
    }

    public String toString()
    {
        return isNodelay() ? "nodelay" : (0 == immediateExcess ? "delay" : "delay=" + immediateExcess);
    }
}
