package dev.cellrate.tcm;

/**
 * The colours of RFC 2697 / RFC 2698 as primitive {@code int} codes, and the pre-colours a colour-aware marker
 * accepts.
 */
public final class Colour
{
    /** Conforms to the committed rate (CIR, CBS). */
    public static final int GREEN = 0;

    /** Exceeds the committed burst but within the excess burst (srTCM) or the peak rate (trTCM). */
    public static final int YELLOW = 1;

    /** Violates the contract; also the answer to a malformed request (negative size, unknown pre-colour). */
    public static final int RED = 2;

    private Colour()
    {
    }

    /**
     * @param colour a colour code.
     * @return true iff it is GREEN, YELLOW or RED.
     */
    public static boolean isValid(final int colour)
    {
        return colour >= GREEN && colour <= RED;
    }

    /**
     * @param colour a colour code.
     * @return "GREEN", "YELLOW", "RED" or "UNKNOWN".
     */
    public static String name(final int colour)
    {
        switch (colour)
        {
            case GREEN:
                return "GREEN";
            case YELLOW:
                return "YELLOW";
            case RED:
                return "RED";
            default:
                return "UNKNOWN";
        }
    }
}
