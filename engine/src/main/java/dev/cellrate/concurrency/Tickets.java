package dev.cellrate.concurrency;

/**
 * Encoding of concurrency tickets and slot words as pure functions over {@code long}s.
 * <p>
 * A slot word is {@code [generation : 63 bits][held : 1 bit]}; a ticket is
 * {@code [generation mod 2^43 : 43 bits][slot : 20 bits]}, always &ge; 0 (bit 63 clear), so it cannot be
 * confused with a negative {@link dev.cellrate.Result} code:
 * <pre>
 *  slot word   63                                                    1   0
 *             +------------------------------------------------------+---+
 *             |  generation (counts releases of this slot, mod 2^43) | h |
 *             +------------------------------------------------------+---+
 *  ticket      63  62                                  20 19               0
 *             +---+--------------------------------------+-----------------+
 *             | 0 |  generation when acquired (43 bits)  |  slot (20 bits) |
 *             +---+--------------------------------------+-----------------+
 * </pre>
 * A release succeeds only on the exact word {@code held(generation)} and moves the slot to
 * {@code free(generation + 1)}: a second release of the same ticket, or a release of a ticket whose slot has
 * since been released and re-acquired (a newer generation), finds a different word and does nothing. A stale
 * ticket could only match again after 2<sup>43</sup> further acquisitions of that one slot.
 */
final class Tickets
{
    /** Bits of the slot index in a ticket. */
    public static final int SLOT_BITS = 20;

    /** Bits of the generation in a ticket and a slot word. */
    public static final int GENERATION_BITS = 63 - SLOT_BITS;

    /** Most slots (the largest {@code maxInFlight}). */
    public static final int MAX_SLOTS = 1 << SLOT_BITS;

    static final long SLOT_MASK = MAX_SLOTS - 1;
    static final long GENERATION_MASK = (1L << GENERATION_BITS) - 1;

    private Tickets()
    {
    }

    /**
     * @param word a slot word.
     * @return true iff the slot is held.
     */
    public static boolean isHeld(final long word)
    {
        return (word & 1) != 0;
    }

    /**
     * @param word a slot word.
     * @return its generation.
     */
    public static long generationOf(final long word)
    {
        return word >>> 1;
    }

    /**
     * @param generation in [0, 2^43).
     * @return the word of a slot held in that generation.
     */
    public static long heldWord(final long generation)
    {
        return (generation << 1) | 1;
    }

    /**
     * @param generation the generation that was held.
     * @return the word of the slot freed by its release: the next generation, not held.
     */
    public static long releasedWord(final long generation)
    {
        return ((generation + 1) & GENERATION_MASK) << 1;
    }

    /**
     * @param generation in [0, 2^43).
     * @param slot       in [0, {@link #MAX_SLOTS}).
     * @return the ticket, &ge; 0.
     */
    public static long ticket(final long generation, final int slot)
    {
        return (generation << SLOT_BITS) | slot;
    }

    /**
     * @param ticket a ticket &ge; 0.
     * @return its slot.
     */
    public static int slotOf(final long ticket)
    {
        return (int)(ticket & SLOT_MASK);
    }

    /**
     * @param ticket a ticket &ge; 0.
     * @return its generation.
     */
    public static long generationOfTicket(final long ticket)
    {
        return ticket >>> SLOT_BITS;
    }

    /**
     * @param inFlight    the in-flight count before the request.
     * @param maxInFlight N.
     * @return true iff one more may start: {@code inFlight < N}.
     */
    public static boolean admits(final long inFlight, final long maxInFlight)
    {
        return inFlight < maxInFlight;
    }
}
