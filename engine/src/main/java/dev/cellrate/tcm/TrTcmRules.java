package dev.cellrate.tcm;

/**
 * The two rate three colour marker of RFC 2698 as pure functions over {@code long}s.
 * <p>
 * Two independent buckets, both full at the start: P of size PBS refilled at PIR per second, C of size CBS
 * refilled at CIR per second (see {@link TokenTicks}). A packet of {@code B} bytes is, colour-blind: RED if
 * {@code Tp < B} (nothing changes), else YELLOW if {@code Tc < B} ({@code Tp -= B}), else GREEN
 * ({@code Tp -= B} and {@code Tc -= B}). Colour-aware, a packet pre-coloured red is RED and one pre-coloured
 * yellow is at best YELLOW. Colour-blind is colour-aware with every packet pre-coloured green.
 */
final class TrTcmRules
{
    private TrTcmRules()
    {
    }

    /**
     * @param tokens     the bucket's count before the refill.
     * @param ticks      tokens added since the last update.
     * @param burstBytes the bucket's size.
     * @return {@code min(size, tokens + ticks)}.
     */
    public static long afterRefill(final long tokens, final long ticks, final long burstBytes)
    {
        return Math.min(burstBytes, tokens + ticks);
    }

    /**
     * @param peakTokens      Tp after the refill.
     * @param committedTokens Tc after the refill.
     * @param bytes           B; negative is answered RED.
     * @param preColour       {@link Colour#GREEN} for colour-blind; any other code than the three is RED.
     * @return the colour; the caller debits Tp and Tc for GREEN, Tp for YELLOW, nothing for RED.
     */
    public static int colour(final long peakTokens, final long committedTokens, final long bytes, final int preColour)
    {
        if (bytes < 0 || !Colour.isValid(preColour) || Colour.RED == preColour || peakTokens < bytes)
        {
            return Colour.RED;
        }
        if (Colour.YELLOW == preColour || committedTokens < bytes)
        {
            return Colour.YELLOW;
        }
        return Colour.GREEN;
    }
}
