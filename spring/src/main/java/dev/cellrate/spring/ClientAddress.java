package dev.cellrate.spring;

/**
 * A client address as one {@code long} key, parsed from text with no allocation.
 * <p>
 * An IPv6 address keeps its first {@code prefixBits} bits (at most 64: one subscriber usually holds a /64)
 * as the top of the key. An IPv4 address (or an IPv4-mapped IPv6 one) is {@code 0x0000_0001_xxxx_xxxx}: that
 * is the /64 {@code 0:1:xxxx:xxxx::}, inside {@code ::/8}, which IANA reserves and no client sends from, so an
 * IPv4 client and an IPv6 client never share a key. {@link #NO_KEY} ({@code ffff:ffff:ffff:ffff::/64},
 * multicast, never a source) means "not an address".
 * <p>
 * Forwarded lists ({@code X-Forwarded-For}) are read from the right over every field line, as if the lines were
 * joined with commas (HAProxy appends a new line, NGINX appends to the last one): with {@code trustedHops = n}
 * the n-th entry from the right is the client; the entries further left are whatever the client sent.
 */
public final class ClientAddress
{
    /** Not an address. */
    public static final long NO_KEY = -1L;

    /** The tag of IPv4 keys. */
    static final long IPV4_TAG = 1L << 32;

    /** Longest forwarded field line read; a longer one makes the request key-less. */
    public static final int MAX_LINE_LENGTH = 4096;

    private ClientAddress()
    {
    }

    /**
     * @param s          the text.
     * @param prefixBits the IPv6 prefix kept, in [1, 64].
     * @return the key of the address in all of {@code s}, or {@link #NO_KEY}.
     */
    public static long parse(final CharSequence s, final int prefixBits)
    {
        return null == s ? NO_KEY : parse(s, 0, s.length(), prefixBits);
    }

    /**
     * @param s          the text.
     * @param from       first char.
     * @param to         end (exclusive).
     * @param prefixBits the IPv6 prefix kept, in [1, 64].
     * @return the key of the address in {@code s[from, to)} (surrounding spaces and brackets allowed), or
     * {@link #NO_KEY}.
     */
    public static long parse(final CharSequence s, int from, int to, final int prefixBits)
    {
        while (from < to && isSpace(s.charAt(from)))
        {
            from++;
        }
        while (to > from && isSpace(s.charAt(to - 1)))
        {
            to--;
        }
        if (to - from >= 2 && '[' == s.charAt(from) && ']' == s.charAt(to - 1))
        {
            from++;
            to--;
        }
        if (from >= to || to - from > 45)
        {
            return NO_KEY;
        }
        boolean colon = false;
        for (int i = from; i < to; i++)
        {
            if (':' == s.charAt(i))
            {
                colon = true;
                break;
            }
        }
        if (!colon)
        {
            final long v4 = parseV4(s, from, to);
            return v4 < 0 ? NO_KEY : IPV4_TAG | v4;
        }
        return parseV6(s, from, to, prefixBits);
    }

    /**
     * The key of the {@code trustedHops}-th entry from the right of a comma-separated list spread over
     * {@code lines[0..lineCount)}.
     *
     * @param lines       the field lines in the order received.
     * @param lineCount   how many.
     * @param trustedHops the trusted proxies, &ge; 1.
     * @param prefixBits  the IPv6 prefix kept.
     * @return the key, or {@link #NO_KEY} if there are fewer entries or the entry is not an address.
     */
    public static long fromRight(
        final CharSequence[] lines, final int lineCount, final int trustedHops, final int prefixBits)
    {
        int hop = 0;
        for (int l = lineCount - 1; l >= 0; l--)
        {
            final CharSequence line = lines[l];
            if (null == line || line.length() > MAX_LINE_LENGTH)
            {
                return NO_KEY;
            }
            int end = line.length();
            while (end >= 0)
            {
                int start = end - 1;
                while (start >= 0 && ',' != line.charAt(start))
                {
                    start--;
                }
                if (++hop == trustedHops)
                {
                    return parse(line, start + 1, end, prefixBits);
                }
                end = start;
            }
        }
        return NO_KEY;
    }

    /**
     * @param address    4 or 16 bytes, as {@code InetAddress.getAddress()}.
     * @param prefixBits the IPv6 prefix kept.
     * @return the key, or {@link #NO_KEY}.
     */
    public static long of(final byte[] address, final int prefixBits)
    {
        if (4 == address.length)
        {
            return IPV4_TAG | ((address[0] & 0xFFL) << 24 | (address[1] & 0xFFL) << 16 | (address[2] & 0xFFL) << 8 |
                (address[3] & 0xFFL));
        }
        if (16 != address.length)
        {
            return NO_KEY;
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++)
        {
            hi = hi << 8 | (address[i] & 0xFFL);
            lo = lo << 8 | (address[i + 8] & 0xFFL);
        }
        return v6Key(hi, lo, prefixBits);
    }

    /**
     * @param key a key from this class.
     * @return the address or prefix it stands for, for people (allocates).
     */
    public static String toString(final long key)
    {
        if (NO_KEY == key)
        {
            return "no-key";
        }
        if ((key >>> 32) == 1)
        {
            return ((key >>> 24) & 0xFF) + "." + ((key >>> 16) & 0xFF) + "." + ((key >>> 8) & 0xFF) + "." + (key & 0xFF);
        }
        return Long.toHexString(key >>> 48) + ':' + Long.toHexString((key >>> 32) & 0xFFFF) + ':' +
            Long.toHexString((key >>> 16) & 0xFFFF) + ':' + Long.toHexString(key & 0xFFFF) + "::/64";
    }

    private static long v6Key(final long hi, final long lo, final int prefixBits)
    {
        if (0 == hi && (lo >>> 32) == 0xFFFFL)
        {
            return IPV4_TAG | (lo & 0xFFFF_FFFFL); // IPv4-mapped
        }
        final long mask = -1L << (64 - prefixBits);
        final long key = hi & mask;
        return NO_KEY == key ? NO_KEY : key;
    }

    private static long parseV4(final CharSequence s, final int from, final int to)
    {
        long value = 0;
        int parts = 0;
        int i = from;
        while (i < to)
        {
            int part = 0;
            int digits = 0;
            while (i < to && s.charAt(i) >= '0' && s.charAt(i) <= '9')
            {
                part = part * 10 + (s.charAt(i) - '0');
                digits++;
                i++;
                if (digits > 3)
                {
                    return -1;
                }
            }
            if (0 == digits || part > 255 || (digits > 1 && '0' == s.charAt(i - digits)))
            {
                return -1;
            }
            value = value << 8 | part;
            parts++;
            if (i < to)
            {
                if ('.' != s.charAt(i) || parts == 4)
                {
                    return -1;
                }
                i++;
                if (i == to)
                {
                    return -1;
                }
            }
        }
        return 4 == parts ? value : -1;
    }

    private static long parseV6(final CharSequence s, final int from, final int to, final int prefixBits)
    {
        // groups before "::" in hi/lo order, groups after it counted separately, then shifted into place
        long head0 = 0;
        long head1 = 0;
        int headGroups = 0;
        long tail0 = 0;
        long tail1 = 0;
        int tailGroups = 0;
        boolean compressed = false;
        int i = from;
        if (i + 1 < to && ':' == s.charAt(i) && ':' == s.charAt(i + 1))
        {
            compressed = true;
            i += 2;
        }
        while (i < to)
        {
            final char c = s.charAt(i);
            if ('%' == c)
            {
                return ClientAddress.NO_KEY; // a zone: not a client address on the wire
            }
            // an embedded IPv4 tail
            int j = i;
            boolean dot = false;
            while (j < to && ':' != s.charAt(j))
            {
                if ('.' == s.charAt(j))
                {
                    dot = true;
                }
                j++;
            }
            final int groups = (compressed ? tailGroups : headGroups);
            if (dot)
            {
                if (j != to)
                {
                    return NO_KEY;
                }
                final long v4 = parseV4(s, i, to);
                if (v4 < 0 || headGroups + tailGroups + 2 > (compressed ? 7 : 8))
                {
                    return NO_KEY;
                }
                if (compressed)
                {
                    tail0 = tail0 << 32 | tail1 >>> 32;
                    tail1 = tail1 << 32 | v4;
                    tailGroups += 2;
                }
                else
                {
                    head0 = head0 << 32 | head1 >>> 32;
                    head1 = head1 << 32 | v4;
                    headGroups += 2;
                }
                break;
            }
            if (j - i < 1 || j - i > 4 || groups >= 8)
            {
                return NO_KEY;
            }
            int group = 0;
            for (int k = i; k < j; k++)
            {
                final int h = hex(s.charAt(k));
                if (h < 0)
                {
                    return NO_KEY;
                }
                group = group << 4 | h;
            }
            if (compressed)
            {
                tail0 = tail0 << 16 | tail1 >>> 48;
                tail1 = tail1 << 16 | group;
                tailGroups++;
            }
            else
            {
                head0 = head0 << 16 | head1 >>> 48;
                head1 = head1 << 16 | group;
                headGroups++;
            }
            i = j;
            if (i < to)
            {
                i++; // the ':'
                if (i < to && ':' == s.charAt(i))
                {
                    if (compressed)
                    {
                        return NO_KEY;
                    }
                    compressed = true;
                    i++;
                }
                else if (i == to)
                {
                    return NO_KEY; // trailing single ':'
                }
            }
        }
        if (compressed ? headGroups + tailGroups > 7 : headGroups != 8)
        {
            return NO_KEY;
        }
        // place the head groups at the top: shift left by 16 * (8 - headGroups) bits over 128 bits
        final int headShift = 16 * (8 - headGroups);
        long hi = shl128Hi(head0, head1, headShift);
        long lo = shl128Lo(head1, headShift);
        hi |= tail0;
        lo |= tail1;
        return v6Key(hi, lo, prefixBits);
    }

    private static long shl128Hi(final long hi, final long lo, final int n)
    {
        if (0 == n)
        {
            return hi;
        }
        if (n >= 128)
        {
            return 0;
        }
        if (n >= 64)
        {
            return lo << (n - 64);
        }
        return hi << n | lo >>> (64 - n);
    }

    private static long shl128Lo(final long lo, final int n)
    {
        return n >= 64 ? 0 : lo << n;
    }

    private static boolean isSpace(final char c)
    {
        return ' ' == c || '\t' == c;
    }

    private static int hex(final char c)
    {
        if (c >= '0' && c <= '9')
        {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f')
        {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F')
        {
            return c - 'A' + 10;
        }
        return -1;
    }
}
