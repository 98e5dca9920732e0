package dev.cellrate.tcm;

/**
 * The single rate three colour marker of RFC 2697 as pure functions over {@code long}s.
 * <p>
 * Two buckets, both full at the start: C of size CBS and E of size EBS, in bytes. Tokens are added at CIR
 * per second (see {@link TokenTicks}), each one to C if C is not full, else to E if E is not full. A packet of
 * {@code B} bytes is, colour-blind: GREEN if {@code Tc >= B} (then {@code Tc -= B}), else YELLOW if
 * {@code Te >= B} ({@code Te -= B}), else RED (nothing changes). Colour-aware, a packet keeps at worst its
 * pre-colour: GREEN only if pre-coloured green, YELLOW only if pre-coloured green or yellow. Colour-blind is
 * colour-aware with every packet pre-coloured green.
 */
final class SrTcmRules
{
    private SrTcmRules()
    {
    }

    /**
     * @param committedTokens Tc before the refill.
     * @param ticks           tokens added since the last update.
     * @param cbsBytes        CBS.
     * @return Tc after the refill: {@code min(CBS, Tc + ticks)}.
     */
    public static long committedAfterRefill(final long committedTokens, final long ticks, final long cbsBytes)
    {
        return Math.min(cbsBytes, committedTokens + ticks);
    }

    /**
     * @param excessTokens    Te before the refill.
     * @param overflowTicks   tokens that found C full: {@code ticks - (Tc' - Tc)}.
     * @param ebsBytes        EBS.
     * @return Te after the refill: {@code min(EBS, Te + overflow)}.
     */
    public static long excessAfterRefill(final long excessTokens, final long overflowTicks, final long ebsBytes)
    {
        return Math.min(ebsBytes, excessTokens + overflowTicks);
    }

    /**
     * @param committedTokens Tc after the refill.
     * @param excessTokens    Te after the refill.
     * @param bytes           B; negative is answered RED.
     * @param preColour       {@link Colour#GREEN} for colour-blind; any other code than the three is RED.
     * @return the colour; the caller debits Tc for GREEN, Te for YELLOW, nothing for RED.
     */
    public static int colour(final long committedTokens, final long excessTokens, final long bytes, final int preColour)
    {
        if (bytes < 0 || !Colour.isValid(preColour))
        {
            return Colour.RED;
        }
        if (Colour.GREEN == preColour && committedTokens >= bytes)
        {
            return Colour.GREEN;
        }
        if (Colour.RED != preColour && excessTokens >= bytes)
        {
            return Colour.YELLOW;
        }
        return Colour.RED;
    }
}
