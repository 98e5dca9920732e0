package dev.cellrate.tcm;

import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of the markers sees besides the colours of RFC 2697/2698 (those are {@link TcmTest}): the
 * colour constants' names and range, and the clock a marker reads.
 */
class TcmSpecTest
{
    @Test
    void coloursHaveNamesAndExactlyThreeAreValid()
    {
        assertEquals("GREEN", Colour.name(Colour.GREEN));
        assertEquals("YELLOW", Colour.name(Colour.YELLOW));
        assertEquals("RED", Colour.name(Colour.RED));
        assertEquals("UNKNOWN", Colour.name(3));
        assertEquals("UNKNOWN", Colour.name(-1));
        assertTrue(Colour.isValid(Colour.GREEN));
        assertTrue(Colour.isValid(Colour.YELLOW));
        assertTrue(Colour.isValid(Colour.RED));
        assertFalse(Colour.isValid(Colour.GREEN - 1));
        assertFalse(Colour.isValid(Colour.RED + 1));
    }

    @Test
    void markersReadTheClockTheyWereGiven()
    {
        final NanoClock clock = () -> 42L;
        assertSame(clock, new SrTcm(1_000, 100, 100, clock).clock());
        assertSame(clock, new TrTcm(2_000, 100, 1_000, 100, clock).clock());
    }

    @Test
    void aPreColourOfRedStaysRedWithFullBuckets()
    {
        final SrTcm sr = new SrTcm(1_000, 100, 100);
        assertEquals(Colour.RED, sr.markColourAware(1, Colour.RED, 0));
        assertEquals(100, sr.committedTokens(), "a red packet takes no tokens");
        assertEquals(100, sr.excessTokens());
        final TrTcm tr = new TrTcm(2_000, 100, 1_000, 100);
        assertEquals(Colour.RED, tr.markColourAware(1, Colour.RED, 0));
        assertEquals(100, tr.peakTokens());
        assertEquals(100, tr.committedTokens());
    }
}
