package dev.cellrate;

import org.agrona.concurrent.NanoClock;

/**
 * The front contract of a traffic marker (RFC 2697 srTCM, RFC 2698 trTCM): colour a packet of {@code bytes},
 * colour-blind or colour-aware, with time explicit or read from {@link #clock()}. Answers a
 * {@code dev.cellrate.tcm.Colour}, never a {@link Result} code. The colour-aware forms have their own name so
 * that a pre-colour can never be taken for a time.
 * <p>
 * Threading: thread-safe. Allocation: none, on every method.
 */
public interface Marker
{
    /**
     * @param bytes the packet size, &ge; 0.
     * @param nowNs the arrival time, ns.
     * @return the colour, colour-blind.
     */
    int mark(long bytes, long nowNs);

    /**
     * @param bytes     the packet size, &ge; 0.
     * @param preColour the colour the packet arrived with.
     * @param nowNs     the arrival time, ns.
     * @return the colour, colour-aware (never better than {@code preColour}).
     */
    int markColourAware(long bytes, int preColour, long nowNs);

    /**
     * @return the clock the clock forms read.
     */
    NanoClock clock();

    /**
     * @param bytes the packet size.
     * @return as {@link #mark(long, long)}, by the clock.
     */
    default int mark(final long bytes)
    {
        return mark(bytes, clock().nanoTime());
    }

    /**
     * @param bytes     the packet size.
     * @param preColour the colour the packet arrived with.
     * @return as {@link #markColourAware(long, int, long)}, by the clock.
     */
    default int markColourAware(final long bytes, final int preColour)
    {
        return markColourAware(bytes, preColour, clock().nanoTime());
    }
}
