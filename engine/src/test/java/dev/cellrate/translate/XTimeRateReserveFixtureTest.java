package dev.cellrate.translate;

import dev.cellrate.Result;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.cellrate.Limit;
import dev.cellrate.Reservation;
import dev.cellrate.ReservingLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Go's {@code ReserveN} / {@code CancelAt} / {@code AllowN} against {@link ReservingLimiter} with
 * {@link XTimeRate#newLimiter}, decision for decision, on outputs recorded from the real
 * {@code golang.org/x/time/rate} 0.3.0 (fixture {@code xtimerate-reserve.txt}, generator
 * {@code engine/src/test/go/xtimerate_fixtures.go}, command in {@code docs/translations.md}). Go is not needed
 * to run this test.
 * <p>
 * Exact (0 ns difference) where r divides 10<sup>9</sup> except for Go's float64 truncating a fractional
 * token's duration by 1 ns; for r = 3 cellrate's T is rounded up (333,333,334 ns) and its times to act are
 * never earlier than Go's, drifting later by at most 2/3 ns per permit of backlog.
 */
class XTimeRateReserveFixtureTest
{
    private static final String FIXTURE = "xtimerate-reserve.txt";

    @Test
    void tracesMatchTheRealGoLibrary() throws IOException
    {
        final List<String> lines = fixture();
        ReservingLimiter limiter = null;
        final Reservation last = new Reservation();
        long rate = 0;
        final Map<Long, long[]> perRate = new HashMap<>();
        long[] stats = null;
        for (final String line : lines)
        {
            final String[] f = line.split(" ");
            switch (f[0])
            {
                case "L":
                    rate = Long.parseLong(f[1]);
                    limiter = XTimeRate.newReservingLimiter(rate, Long.parseLong(f[2]), org.agrona.concurrent.SystemNanoClock.INSTANCE);
                    // {events, exact, goOneNsEarlier, maxDriftNs}
                    stats = perRate.computeIfAbsent(rate, r -> new long[4]);
                    break;
                case "R":
                {
                    final long t = Long.parseLong(f[1]);
                    final long n = Long.parseLong(f[2]);
                    assertTrue(Boolean.parseBoolean(f[3]), "ReserveN with n <= b is always OK in Go");
                    final long goDelayNs = Long.parseLong(f[4]);
                    final long code = limiter.reserve(n, t, Long.MAX_VALUE, last);
                    assertTrue(Result.isReserved(code), line);
                    final long diff = code - goDelayNs;
                    stats[0]++;
                    if (0 == diff)
                    {
                        stats[1]++;
                    }
                    else if (1 == diff && 1_000_000_000L % rate == 0)
                    {
                        stats[2]++;
                    }
                    else
                    {
                        assertTrue(1_000_000_000L % rate != 0 && diff > 0,
                            "r = " + rate + ": " + line + " cellrate " + code);
                        stats[3] = Math.max(stats[3], diff);
                    }
                    break;
                }
                case "C":
                    limiter.cancel(last, Long.parseLong(f[1]));
                    break;
                case "A":
                {
                    final long code = limiter.reserve(Long.parseLong(f[2]), Long.parseLong(f[1]), 0);
                    stats[0]++;
                    assertEquals(Boolean.parseBoolean(f[3]), 0 == code, "r = " + rate + ": " + line);
                    stats[1]++;
                    break;
                }
                default:
                    break;
            }
        }
        for (final Map.Entry<Long, long[]> e : perRate.entrySet())
        {
            final long[] s = e.getValue();
            System.out.printf("x/time/rate Reserve fixture r=%d: %d events, %d identical, %d Go 1 ns earlier " +
                "(float64), max drift %d ns%n", e.getKey(), s[0], s[1], s[2], s[3]);
            if (1_000_000_000L % e.getKey() == 0)
            {
                assertEquals(s[0], s[1] + s[2], "r = " + e.getKey());
            }
        }
    }

    @Test
    void handMadeScenariosAsGoAnswersThem() throws IOException
    {
        final Map<String, List<String>> x = new HashMap<>();
        for (final String line : fixture())
        {
            if (line.startsWith("X "))
            {
                final String[] f = line.split(" ", 3);
                x.computeIfAbsent(f[1], k -> new ArrayList<>()).add(f[2]);
            }
        }
        // Six reservations at once on NewLimiter(10, 5): Go grants all, the sixth waits 100 ms.
        final ReservingLimiter limiter = new ReservingLimiter(XTimeRate.newLimiter(10, 5));
        for (int i = 0; i < 6; i++)
        {
            assertEquals(x.get("six").get(i), i + " " + limiter.reserve(1, 0, Long.MAX_VALUE));
        }
        // ... which the Shaper does not do: it spaces the first five and rejects the sixth.
        final Shaper shaper = new Shaper(XTimeRate.newLimiter(10, 5), ShaperMode.delay());
        for (int i = 0; i < 5; i++)
        {
            assertEquals(i * 100_000_000L, shaper.reserve(1, 0));
        }
        assertFalse(Result.isReserved(shaper.reserve(1, 0)));

        // Go restores twice on a second CancelAt; cellrate refunds once.
        final ReservingLimiter twice = new ReservingLimiter(XTimeRate.newLimiter(10, 5));
        final Reservation r = new Reservation();
        twice.reserve(5, 0, Long.MAX_VALUE);
        assertEquals(x.get("twice").get(0), "delay " + twice.reserve(3, 0, Long.MAX_VALUE, r));
        assertEquals("tokensAfterFirst 0", x.get("twice").get(1));
        assertEquals("tokensAfterSecond 5", x.get("twice").get(2), "Go: the second cancel restores 3 more");
        assertTrue(twice.cancel(r, 0));
        assertFalse(twice.cancel(r, 0));
        assertFalse(Result.isReserved(twice.reserve(1, 0, 0)), "after one refund the bucket is empty");

        // No refund once the time to act has passed; a refund exactly at the time to act.
        assertTrue(Double.parseDouble(x.get("late").get(0).split(" ")[1]) < 1e-6, "Go: no refund after the time to act");
        assertEquals("tokens 1", x.get("onTime").get(0));
        for (final long cancelNs : new long[] {100_000_001, 100_000_000})
        {
            final ReservingLimiter one = new ReservingLimiter(XTimeRate.newLimiter(10, 1));
            final Reservation held = new Reservation();
            assertEquals(0, one.reserve(1, 0, Long.MAX_VALUE));
            assertEquals(100_000_000, one.reserve(1, 0, Long.MAX_VALUE, held));
            assertEquals(100_000_000 == cancelNs, one.cancel(held, cancelNs));
            assertEquals(100_000_000 == cancelNs, 0 == one.reserve(1, cancelNs, 0), "a token at " + cancelNs);
        }

        // Edges, as Go answers them; cellrate refuses what it cannot express.
        assertEquals("true tokens 5", x.get("allowZero").get(0), "Go: AllowN(t, 0) is true and takes nothing");
        assertEquals("true tokens 3", x.get("allowMinusOne").get(0), "Go: AllowN(t, -1) adds a token (2 -> 3)");
        assertEquals("true true false false", x.get("limitZero").get(0), "Go: Limit(0) gives b tokens once");
        assertEquals("true false false", x.get("burstZero").get(0), "Go: b = 0 admits only n = 0");
        final ReservingLimiter edges = new ReservingLimiter(XTimeRate.newLimiter(10, 5));
        assertEquals(dev.cellrate.Result.NEVER, edges.reserve(0, 0, Long.MAX_VALUE), "n = 0 charges nothing");
        assertEquals(dev.cellrate.Result.NEVER, edges.reserve(-1, 0, Long.MAX_VALUE), "n < 0 never adds");

        // r = 3, b = 50: Go's exact 1/r against cellrate's T rounded up.
        final ReservingLimiter r3 = new ReservingLimiter(XTimeRate.newLimiter(3, 50));
        for (int i = 0; i < 50; i++)
        {
            r3.reserve(1, 0, Long.MAX_VALUE);
        }
        long maxDriftNs = 0;
        for (int i = 0; i < 50; i++)
        {
            final long goNs = Long.parseLong(x.get("r3").get(i).split(" ")[1]);
            final long ours = r3.reserve(1, 0, Long.MAX_VALUE);
            assertEquals((i + 1) * 333_333_334L, ours);
            assertTrue(ours >= goNs, "never earlier than Go");
            maxDriftNs = Math.max(maxDriftNs, ours - goNs);
        }
        assertEquals(34, maxDriftNs, "50 permits of backlog at 2/3 ns each, plus Go's truncation");
    }

    private static List<String> fixture() throws IOException
    {
        final List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(
            XTimeRateReserveFixtureTest.class.getResourceAsStream(FIXTURE), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                if (!line.startsWith("#"))
                {
                    lines.add(line);
                }
            }
        }
        return lines;
    }
}
