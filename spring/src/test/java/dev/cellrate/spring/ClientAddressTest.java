package dev.cellrate.spring;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The address parser against the JDK's, on random addresses in every textual form, and its allocation. */
class ClientAddressTest
{
    @Test
    void parsesLikeTheJdkInEveryForm() throws Exception
    {
        final SplittableRandom random = new SplittableRandom(23);
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] bytes = new byte[random.nextBoolean() ? 4 : 16];
            for (int b = 0; b < bytes.length; b++)
            {
                // zero runs are common in real addresses and exercise "::"
                bytes[b] = random.nextInt(3) == 0 ? 0 : (byte)random.nextInt(256);
            }
            final InetAddress address = InetAddress.getByAddress(bytes);
            final byte[] canonical = address.getAddress(); // IPv4-mapped IPv6 comes back as IPv4
            final int prefix = 1 + random.nextInt(64);
            final long expected = ClientAddress.of(canonical, prefix);
            final String text = address.getHostAddress();
            assertEquals(expected, ClientAddress.parse(text, prefix), text);
            assertEquals(expected, ClientAddress.parse(" [" + text + "] ", prefix), text);
            if (16 == canonical.length)
            {
                final String compressed = compress(text);
                assertEquals(expected, ClientAddress.parse(compressed, prefix), compressed);
                assertEquals(expected, ClientAddress.parse(compressed.toUpperCase(), prefix), compressed);
            }
        }
    }

    @Test
    void refusesWhatIsNotAnAddress()
    {
        for (final String bad : new String[] {"", " ", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3",
            "1.2.3.4.", "::1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1", "fe80::1%eth0", ":1",
            "1:", "unknown", "[::1", "1.2.3.4:80"})
        {
            assertEquals(ClientAddress.NO_KEY, ClientAddress.parse(bad, 64), bad);
        }
        assertEquals(ClientAddress.parse("1.2.3.4", 64), ClientAddress.parse("::ffff:1.2.3.4", 64));
        assertEquals(ClientAddress.parse("2001:db8:1:2::", 64), ClientAddress.parse("2001:db8:1:2:ffff::1", 64));
        assertEquals("2001:db8:1:2::/64", ClientAddress.toString(ClientAddress.parse("2001:db8:1:2::9", 64)));
        assertEquals("203.0.113.7", ClientAddress.toString(ClientAddress.parse("203.0.113.7", 64)));
    }

    @Test
    void forwardedListsAreReadFromTheRightOverEveryLine()
    {
        final CharSequence[] lines = {"6.6.6.6, 203.0.113.7", "10.0.0.1"};
        assertEquals(ClientAddress.parse("10.0.0.1", 64), ClientAddress.fromRight(lines, 2, 1, 64));
        assertEquals(ClientAddress.parse("203.0.113.7", 64), ClientAddress.fromRight(lines, 2, 2, 64));
        assertEquals(ClientAddress.parse("6.6.6.6", 64), ClientAddress.fromRight(lines, 2, 3, 64));
        assertEquals(ClientAddress.NO_KEY, ClientAddress.fromRight(lines, 2, 4, 64));
        assertEquals(ClientAddress.NO_KEY, ClientAddress.fromRight(new CharSequence[] {"1.1.1.1,,"}, 1, 1, 64));
    }

    @Test
    void parsingAllocatesNothing()
    {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final String[] texts = {"203.0.113.7", "2001:db8:1:2::9", "[2001:db8::1]", "::ffff:10.1.2.3"};
        final CharSequence[] lines = {"6.6.6.6, 2001:db8::1", "10.0.0.1"};
        long sink = 0;
        final long[] perRound = new long[6];
        for (int round = 0; round < perRound.length; round++)
        {
            final long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++)
            {
                sink += ClientAddress.parse(texts[i & 3], 64) + ClientAddress.fromRight(lines, 2, 2, 64);
            }
            perRound[round] = mx.getCurrentThreadAllocatedBytes() - before;
        }
        // warm-up rounds may allocate (compilation); a later round of 200000 parses allocates nothing
        assertEquals(0, java.util.Arrays.stream(perRound, 2, perRound.length).min().getAsLong(),
            "bytes per round " + java.util.Arrays.toString(perRound) + " (sink " + sink + ")");
    }

    /** The longest run of two or more zero groups as "::" (RFC 5952 style), lower case. */
    private static String compress(final String full)
    {
        final String[] groups = full.split(":");
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < groups.length; )
        {
            if ("0".equals(groups[i]))
            {
                int j = i;
                while (j < groups.length && "0".equals(groups[j]))
                {
                    j++;
                }
                if (j - i > bestLength)
                {
                    bestStart = i;
                    bestLength = j - i;
                }
                i = j;
            }
            else
            {
                i++;
            }
        }
        if (bestStart < 0)
        {
            return full;
        }
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < bestStart; i++)
        {
            b.append(i > 0 ? ":" : "").append(groups[i]);
        }
        b.append("::");
        for (int i = bestStart + bestLength; i < groups.length; i++)
        {
            b.append(groups[i]).append(i + 1 < groups.length ? ":" : "");
        }
        return b.toString();
    }
}
