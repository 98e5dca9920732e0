package dev.cellrate;

/**
 * When an admitted request is released, relative to its GCRA slot: the three modes of NGINX {@code limit_req}.
 * <ul>
 *     <li>{@link #delay()}: every admitted request is released at its slot {@code max(t, TAT)}: a queueing
 *     leaky bucket, output spaced by at least T (NGINX without {@code delay=} or {@code nodelay}).</li>
 *     <li>{@link #delay(long) delay(N)}: a request whose <em>excess</em> (its wait {@code max(t, TAT) - t}
 *     in units of T) is at most N goes at once, a larger one waits {@code (excess - N) * T}
 *     (NGINX {@code delay=N}). From idle, the first N + 1 requests go at once (1 at the rate plus N excess)
 *     and the rest are spaced by T.</li>
 *     <li>{@link #nodelay()}: every admitted request goes at once: policing (NGINX {@code nodelay}).</li>
 * </ul>
 * Admission is the same GCRA in every mode; the mode changes only the release time. Immutable.
 */
public final class ShaperMode
{
    private static final ShaperMode DELAY = new ShaperMode(0);
    private static final ShaperMode NODELAY = new ShaperMode(Long.MAX_VALUE);

    private final long immediateExcess;

    private ShaperMode(final long immediateExcess)
    {
        this.immediateExcess = immediateExcess;
    }

    /**
     * @return the mode that releases every admitted request at its slot (NGINX default).
     */
    public static ShaperMode delay()
    {
        return DELAY;
    }

    /**
     * @param immediateExcess N, the excess (in requests) that goes without delay, in [0, {@link Long#MAX_VALUE}];
     *                        0 is {@link #delay()}, N &ge; burst - 1 behaves as {@link #nodelay()}.
     * @return the mode of NGINX {@code delay=N}.
     * @throws IllegalArgumentException naming the field and its allowed range.
     */
    public static ShaperMode delay(final long immediateExcess)
    {
        if (immediateExcess < 0)
        {
            throw new IllegalArgumentException(
                "immediateExcess must be in [0, " + Long.MAX_VALUE + "] but was " + immediateExcess);
        }
        return 0 == immediateExcess ? DELAY : new ShaperMode(immediateExcess);
    }

    /**
     * @return the mode that releases every admitted request at once (policing; NGINX {@code nodelay}).
     */
    public static ShaperMode nodelay()
    {
        return NODELAY;
    }

    /**
     * @return N: the excess in requests released without delay ({@link Long#MAX_VALUE} for nodelay).
     */
    public long immediateExcess()
    {
        return immediateExcess;
    }

    /**
     * @param emissionIntervalNs T &ge; 1.
     * @return {@code N * T}, saturated at {@link Long#MAX_VALUE}: the part of a wait that is forgiven.
     */
    long immediateNs(final long emissionIntervalNs)
    {
        return immediateExcess > Long.MAX_VALUE / emissionIntervalNs ?
            Long.MAX_VALUE : immediateExcess * emissionIntervalNs;
    }

    public boolean equals(final Object o)
    {
        return this == o || (o instanceof ShaperMode && ((ShaperMode)o).immediateExcess == immediateExcess);
    }

    public int hashCode()
    {
        return Long.hashCode(immediateExcess);
    }

    public String toString()
    {
        if (0 == immediateExcess)
        {
            return "delay";
        }
        return Long.MAX_VALUE == immediateExcess ? "nodelay" : "delay=" + immediateExcess;
    }
}
