package dev.cellrate.tcm;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcmTest
{
    static final BigInteger BILLION = BigInteger.valueOf(1_000_000_000L);

    /** Update instants in (last, now] of a rate, on the grid t * rate / 10^9 = k, in BigInteger. */
    static long updates(final BigInteger lastNs, final long nowNs, final long ratePerSecond)
    {
        final BigInteger now = BigInteger.valueOf(nowNs);
        if (null == lastNs)
        {
            return Long.MAX_VALUE;
        }
        if (now.compareTo(lastNs) <= 0)
        {
            return 0;
        }
        final BigInteger rate = BigInteger.valueOf(ratePerSecond);
        final BigInteger ticks = floorDiv(now.multiply(rate)).subtract(floorDiv(lastNs.multiply(rate)));
        return ticks.min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    }

    static BigInteger floorDiv(final BigInteger a)
    {
        final BigInteger[] qr = a.divideAndRemainder(BILLION);
        return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
    }

    /** RFC 2697 section 3, literally: one token at a time, C first then E; the colour rules as written. */
    static final class SrTcmReference
    {
        final long cir;
        final long cbs;
        final long ebs;
        long tc;
        long te;
        BigInteger last;

        SrTcmReference(final long cir, final long cbs, final long ebs)
        {
            this.cir = cir;
            this.cbs = cbs;
            this.ebs = ebs;
            this.tc = cbs;
            this.te = ebs;
        }

        int mark(final long bytes, final int preColour, final long nowNs)
        {
            long ticks = updates(last, nowNs, cir);
            while (ticks > 0 && (tc < cbs || te < ebs))
            {
                if (tc < cbs)
                {
                    tc++;
                }
                else
                {
                    te++;
                }
                ticks--;
            }
            final BigInteger now = BigInteger.valueOf(nowNs);
            last = null == last || now.compareTo(last) > 0 ? now : last;
            if (bytes < 0 || preColour < 0 || preColour > 2)
            {
                return Colour.RED;
            }
            if (Colour.GREEN == preColour && tc - bytes >= 0)
            {
                tc -= bytes;
                return Colour.GREEN;
            }
            if ((Colour.GREEN == preColour || Colour.YELLOW == preColour) && te - bytes >= 0)
            {
                te -= bytes;
                return Colour.YELLOW;
            }
            return Colour.RED;
        }
    }

    /** RFC 2698 section 3, literally. */
    static final class TrTcmReference
    {
        final long pir;
        final long pbs;
        final long cir;
        final long cbs;
        long tp;
        long tc;
        BigInteger last;

        TrTcmReference(final long pir, final long pbs, final long cir, final long cbs)
        {
            this.pir = pir;
            this.pbs = pbs;
            this.cir = cir;
            this.cbs = cbs;
            this.tp = pbs;
            this.tc = cbs;
        }

        int mark(final long bytes, final int preColour, final long nowNs)
        {
            for (long ticks = updates(last, nowNs, pir); ticks > 0 && tp < pbs; ticks--)
            {
                tp++;
            }
            for (long ticks = updates(last, nowNs, cir); ticks > 0 && tc < cbs; ticks--)
            {
                tc++;
            }
            final BigInteger now = BigInteger.valueOf(nowNs);
            last = null == last || now.compareTo(last) > 0 ? now : last;
            if (bytes < 0 || preColour < 0 || preColour > 2)
            {
                return Colour.RED;
            }
            if (Colour.RED == preColour || tp - bytes < 0)
            {
                return Colour.RED;
            }
            if (Colour.YELLOW == preColour || tc - bytes < 0)
            {
                tp -= bytes;
                return Colour.YELLOW;
            }
            tp -= bytes;
            tc -= bytes;
            return Colour.GREEN;
        }
    }

    /** Packet sizes around the bursts, gaps around the time one burst takes to refill, some steps back. */
    static long[][] trace(final long seed, final int count, final long startNs, final long meanGapNs,
        final long maxBytes)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long[][] packets = new long[count][3];
        long t = startNs;
        for (int i = 0; i < count; i++)
        {
            final int kind = random.nextInt(100);
            t += kind < 3 ? -random.nextLong(1 + meanGapNs) : (kind < 15 ? 0 : random.nextLong(1 + 2 * meanGapNs));
            packets[i][0] = t;
            packets[i][1] = random.nextInt(50) == 0 ? -random.nextLong(1, 100) : random.nextLong(0, maxBytes + 1);
            packets[i][2] = random.nextInt(20) == 0 ? random.nextInt(-1, 5) : random.nextInt(3);
        }
        return packets;
    }

    @Test
    void srTcmMatchesRfc2697OnSeededRandomTraces()
    {
        final long[][] configs = {{125_000, 1_500, 3_000}, {1_000_000_007L, 9_000, 0}, {3, 10, 7}, {12_345, 0, 4_000}};
        int decisions = 0;
        int mismatches = 0;
        final int[] colours = new int[3];
        for (int c = 0; c < configs.length; c++)
        {
            final long cir = configs[c][0];
            final SrTcm marker = new SrTcm(cir, configs[c][1], configs[c][2]);
            final SrTcmReference reference = new SrTcmReference(cir, configs[c][1], configs[c][2]);
            final long maxBytes = Math.max(configs[c][1], configs[c][2]) + 2;
            final long meanGapNs = Math.max(1, maxBytes * 1_000_000_000L / cir / 4);
            final long[][] packets = trace(100 + c, 6_000, -7 * meanGapNs, meanGapNs, maxBytes);
            for (final long[] packet : packets)
            {
                final boolean blind = packet[2] == 1 && (decisions & 1) == 0;
                final int expected = reference.mark(packet[1], blind ? Colour.GREEN : (int)packet[2], packet[0]);
                final int actual = blind ? marker.mark(packet[1], packet[0]) :
                    marker.markColourAware(packet[1], (int)packet[2], packet[0]);
                decisions++;
                mismatches += expected == actual ? 0 : 1;
                colours[actual]++;
            }
            assertEquals(reference.tc, marker.committedTokens());
            assertEquals(reference.te, marker.excessTokens());
        }
        assertTrue(decisions >= 20_000);
        assertTrue(colours[0] > 1_000 && colours[1] > 1_000 && colours[2] > 1_000, "every colour exercised");
        assertEquals(0, mismatches, "mismatches vs RFC 2697 reference in " + decisions + " decisions");
    }

    @Test
    void trTcmMatchesRfc2698OnSeededRandomTraces()
    {
        final long[][] configs = {{250_000, 3_000, 125_000, 1_500}, {7, 20, 3, 9}, {1L << 33, 100_000, 1L << 32, 50}};
        int decisions = 0;
        int mismatches = 0;
        final int[] colours = new int[3];
        for (int c = 0; c < configs.length; c++)
        {
            final long[] k = configs[c];
            final TrTcm marker = new TrTcm(k[0], k[1], k[2], k[3]);
            final TrTcmReference reference = new TrTcmReference(k[0], k[1], k[2], k[3]);
            final long maxBytes = Math.max(k[1], k[3]) + 2;
            final long meanGapNs = Math.max(1, k[3] * 1_000_000_000L / k[2] / 3);
            final long[][] packets = trace(200 + c, 7_000, 11 * meanGapNs, meanGapNs, maxBytes);
            for (final long[] packet : packets)
            {
                final boolean blind = packet[2] == 1 && (decisions & 1) == 0;
                final int expected = reference.mark(packet[1], blind ? Colour.GREEN : (int)packet[2], packet[0]);
                final int actual = blind ? marker.mark(packet[1], packet[0]) :
                    marker.markColourAware(packet[1], (int)packet[2], packet[0]);
                decisions++;
                mismatches += expected == actual ? 0 : 1;
                colours[actual]++;
            }
            assertEquals(reference.tp, marker.peakTokens());
            assertEquals(reference.tc, marker.committedTokens());
        }
        assertTrue(decisions >= 20_000);
        assertTrue(colours[0] > 1_000 && colours[1] > 1_000 && colours[2] > 1_000, "every colour exercised");
        assertEquals(0, mismatches, "mismatches vs RFC 2698 reference in " + decisions + " decisions");
    }

    @Test
    void workedExampleSrTcm()
    {
        // CIR 1000 B/s (one token per ms), CBS 300, EBS 200; both full at the start.
        final SrTcm marker = new SrTcm(1_000, 300, 200);
        assertEquals(Colour.GREEN, marker.mark(300, 0));
        assertEquals(Colour.YELLOW, marker.mark(200, 0));
        assertEquals(Colour.RED, marker.mark(1, 0));
        assertEquals(Colour.RED, marker.mark(2, 1_999_999)); // one token (at 1 ms) in C
        assertEquals(Colour.GREEN, marker.mark(2, 2_000_000)); // the second token arrives at exactly 2 ms
        assertEquals(Colour.RED, marker.mark(1, 1_000_000)); // backwards: nothing added
        assertEquals(Colour.YELLOW, marker.markColourAware(200, Colour.YELLOW, 10_000_000_000L)); // C refilled, then E
        assertEquals(Colour.RED, marker.markColourAware(1, Colour.RED, 10_000_000_000L));
        assertEquals(Colour.YELLOW, marker.markColourAware(150, Colour.YELLOW, 20_000_000_000L)); // pre-yellow: E only
        assertEquals(Colour.GREEN, marker.markColourAware(300, Colour.GREEN, 20_000_000_000L));
        assertEquals(Colour.RED, marker.mark(-1, 20_000_000_000L));
        assertEquals(Colour.RED, marker.markColourAware(1, 7, 20_000_000_000L));
    }

    @Test
    void workedExampleTrTcm()
    {
        // PIR 2000 B/s, PBS 400; CIR 1000 B/s, CBS 300.
        final TrTcm marker = new TrTcm(2_000, 400, 1_000, 300);
        assertEquals(Colour.GREEN, marker.mark(300, 0)); // Tp 100, Tc 0
        assertEquals(Colour.YELLOW, marker.mark(100, 0)); // Tp 0
        assertEquals(Colour.RED, marker.mark(1, 0));
        assertEquals(Colour.YELLOW, marker.mark(2, 1_000_000)); // Tp 2 (two peak tokens by 1 ms), Tc 1
        assertEquals(Colour.RED, marker.markColourAware(1, Colour.RED, 9_000_000_000L));
        assertEquals(Colour.YELLOW, marker.markColourAware(1, Colour.YELLOW, 9_000_000_000L));
        assertEquals(Colour.GREEN, marker.markColourAware(300, Colour.GREEN, 9_000_000_000L));
    }

    @Test
    void oddTimesNeverThrow()
    {
        final long[] oddTimes = {Long.MIN_VALUE, Long.MAX_VALUE, 0, Long.MIN_VALUE, -1, Long.MAX_VALUE - 1};
        final SrTcm sr = new SrTcm(1L << 33, 100, 50);
        final SrTcmReference srReference = new SrTcmReference(1L << 33, 100, 50);
        final TrTcm tr = new TrTcm(1L << 33, 100, 1, 40);
        final TrTcmReference trReference = new TrTcmReference(1L << 33, 100, 1, 40);
        final SrTcm huge = new SrTcm(1L << 33, 1L << 61, 1L << 61);
        for (int round = 0; round < 3; round++)
        {
            for (final long t : oddTimes)
            {
                for (final long bytes : new long[] {30, 45, 1})
                {
                    assertEquals(srReference.mark(bytes, Colour.GREEN, t), sr.mark(bytes, t), "t=" + t);
                    assertEquals(trReference.mark(bytes, Colour.GREEN, t), tr.mark(bytes, t), "t=" + t);
                }
                huge.mark(1L << 60, t);
                assertTrue(huge.committedTokens() >= 0 && huge.excessTokens() >= 0);
                assertTrue(huge.committedTokens() <= 1L << 61 && huge.excessTokens() <= 1L << 61);
            }
        }
        assertEquals(Colour.RED, tr.mark(100, Long.MAX_VALUE));
    }

    @Test
    void tokenTicksAreExactAndSaturate()
    {
        assertEquals(0, TokenTicks.ticks(5, 5, 1_000, 100));
        assertEquals(0, TokenTicks.ticks(5, 4, 1_000, 100));
        assertEquals(1, TokenTicks.ticks(999_999, 1_000_000, 1_000, 100));
        assertEquals(0, TokenTicks.ticks(1_000_000, 1_999_999, 1_000, 100));
        assertEquals(100, TokenTicks.ticks(Long.MIN_VALUE, Long.MAX_VALUE, 1L << 33, 100));
        assertEquals(4, TokenTicks.ticks(-1, 1_000_000_000L, 3, 100)); // t = 0, 1/3 s, 2/3 s, 1 s
        assertEquals(1, TokenTicks.ticks(-1, 0, 3, 100)); // the grid point t = 0
    }

    @Test
    void validationNamesFieldAndRange()
    {
        assertMessage("cirBytesPerSecond must be in [1, 8589934592] but was 0", () -> new SrTcm(0, 1, 1));
        assertMessage("cbsBytes must be in [0, 2305843009213693952] but was -1", () -> new SrTcm(1, -1, 1));
        assertMessage("ebsBytes must be in [0, 2305843009213693952] but was 2305843009213693953",
            () -> new SrTcm(1, 1, (1L << 61) + 1));
        assertMessage("cbsBytes + ebsBytes must be in [1, 4611686018427387904] but was 0", () -> new SrTcm(1, 0, 0));
        assertMessage("cirBytesPerSecond must be in [1, 8589934592] but was 8589934593",
            () -> new TrTcm(1L << 34, 1, (1L << 33) + 1, 1));
        assertMessage("pirBytesPerSecond must be in [1000, 8589934592] but was 999", () -> new TrTcm(999, 1, 1_000, 1));
        assertMessage("pbsBytes must be in [1, 2305843009213693952] but was 0", () -> new TrTcm(2, 0, 1, 1));
        assertMessage("cbsBytes must be in [1, 2305843009213693952] but was 0", () -> new TrTcm(2, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new SrTcm(1, 1, 1, null));
        assertThrows(IllegalArgumentException.class, () -> new TrTcm(1, 1, 1, 1, null));
    }

    static void assertMessage(final String expected, final Runnable construction)
    {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, construction::run).getMessage());
    }

    /**
     * What a user of the markers sees besides the colours of RFC 2697/2698 (those are {@link TcmTest}): the
     * colour constants' names and range, and the clock a marker reads.
     */
    @Nested
    final class Specification
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
}
