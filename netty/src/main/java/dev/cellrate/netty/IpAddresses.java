package dev.cellrate.netty;

/**
 * Allocation-free parsing of IP literals and their prefix keys. A key is 5 bytes for IPv4 ({@code 4}, then
 * the address) and 17 for IPv6 ({@code 6}, then the address with every bit past the prefix cleared), so one
 * client holding a whole /64 (or /56, /48) is one key. IPv4-mapped IPv6 addresses ({@code ::ffff:a.b.c.d})
 * are IPv4.
 */
public final class IpAddresses
{
    /** The default IPv6 grouping: one subscriber usually holds at least a /64. */
    public static final int IPV6_64 = 64;
    /** A wider IPv6 tier: the common size of a home delegation. */
    public static final int IPV6_56 = 56;
    /** The widest usual IPv6 tier: a site. */
    public static final int IPV6_48 = 48;

    private IpAddresses()
    {
    }

    /**
     * @param ipv6PrefixBits the prefix to check.
     * @return the prefix.
     * @throws IllegalArgumentException unless in [1, 128].
     */
    public static int requirePrefix(final int ipv6PrefixBits)
    {
        if (ipv6PrefixBits < 1 || ipv6PrefixBits > 128)
        {
            throw new IllegalArgumentException("ipv6PrefixBits must be in [1, 128] but was " + ipv6PrefixBits);
        }
        return ipv6PrefixBits;
    }

    /**
     * The key of a raw address (4 or 16 bytes, as {@code InetAddress.getAddress()}).
     *
     * @param address        the address bytes.
     * @param ipv6PrefixBits the IPv6 prefix kept.
     * @param dst            destination, at least 17 bytes.
     * @param off            first byte.
     * @return the key length, or {@link KeyExtractor#NO_KEY} for a length other than 4 or 16.
     */
    public static int key(final byte[] address, final int ipv6PrefixBits, final byte[] dst, final int off)
    {
        if (4 == address.length)
        {
            dst[off] = 4;
            System.arraycopy(address, 0, dst, off + 1, 4);
            return 5;
        }
        if (16 != address.length)
        {
            return KeyExtractor.NO_KEY;
        }
        System.arraycopy(address, 0, dst, off + 1, 16);
        return finishV6(dst, off, ipv6PrefixBits);
    }

    /**
     * Parse an IP literal from {@code s[from, to)}: dotted IPv4, or IPv6 (with {@code ::}, an embedded IPv4
     * tail, optional brackets and a zone are refused) and write its key.
     *
     * @param s              the text.
     * @param from           first char.
     * @param to             end (exclusive).
     * @param ipv6PrefixBits the IPv6 prefix kept.
     * @param dst            destination, at least {@code off + 17} bytes.
     * @param off            first byte.
     * @return the key length, or {@link KeyExtractor#NO_KEY} if the text is not an address.
     */
    public static int parseKey(
        final CharSequence s, final int from, final int to, final int ipv6PrefixBits, final byte[] dst, final int off)
    {
        if (from >= to || to - from > 45)
        {
            return KeyExtractor.NO_KEY;
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
            dst[off] = 4;
            return parseV4(s, from, to, dst, off + 1) ? 5 : KeyExtractor.NO_KEY;
        }
        return parseV6(s, from, to, dst, off + 1) ? finishV6(dst, off, ipv6PrefixBits) : KeyExtractor.NO_KEY;
    }

    private static int finishV6(final byte[] dst, final int off, final int ipv6PrefixBits)
    {
        boolean mapped = true;
        for (int i = 0; i < 10; i++)
        {
            mapped &= 0 == dst[off + 1 + i];
        }
        if (mapped && (byte)0xFF == dst[off + 11] && (byte)0xFF == dst[off + 12])
        {
            dst[off] = 4;
            System.arraycopy(dst, off + 13, dst, off + 1, 4);
            return 5;
        }
        dst[off] = 6;
        for (int bit = 0; bit < 128; bit += 8)
        {
            final int keep = ipv6PrefixBits - bit;
            final int i = off + 1 + (bit >> 3);
            if (keep <= 0)
            {
                dst[i] = 0;
            }
            else if (keep < 8)
            {
                dst[i] = (byte)(dst[i] & (0xFF << (8 - keep)));
            }
        }
        return 17;
    }

    static boolean parseV4(final CharSequence s, final int from, final int to, final byte[] dst, final int off)
    {
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = from; i <= to; i++)
        {
            final char c = i < to ? s.charAt(i) : '.';
            if ('.' == c)
            {
                if (0 == digits || part > 3)
                {
                    return false;
                }
                dst[off + part++] = (byte)value;
                value = 0;
                digits = 0;
            }
            else if (c >= '0' && c <= '9' && digits < 3)
            {
                value = value * 10 + (c - '0');
                digits++;
                if (value > 255)
                {
                    return false;
                }
            }
            else
            {
                return false;
            }
        }
        return 4 == part;
    }

    private static boolean parseV6(final CharSequence s, final int from, final int to, final byte[] dst, final int off)
    {
        int b = 0;          // bytes written
        int gap = -1;       // byte index of "::"
        int i = from;
        if (to - from >= 2 && ':' == s.charAt(i) && ':' == s.charAt(i + 1))
        {
            gap = 0;
            i += 2;
        }
        else if (':' == s.charAt(i))
        {
            return false;
        }
        while (i < to)
        {
            // one group: hex digits, or an IPv4 tail
            final int start = i;
            int value = 0;
            while (i < to && isHex(s.charAt(i)) && i - start < 5)
            {
                value = (value << 4) | hex(s.charAt(i));
                i++;
            }
            if (i < to && '.' == s.charAt(i))
            {
                if (b > 12 || !parseV4(s, start, to, dst, off + b))
                {
                    return false;
                }
                b += 4;
                i = to;
                break;
            }
            final int len = i - start;
            if (0 == len || len > 4 || b > 14)
            {
                return false;
            }
            dst[off + b++] = (byte)(value >> 8);
            dst[off + b++] = (byte)value;
            if (i == to)
            {
                break;
            }
            if (':' != s.charAt(i))
            {
                return false;
            }
            i++;
            if (i < to && ':' == s.charAt(i))
            {
                if (gap >= 0)
                {
                    return false;
                }
                gap = b;
                i++;
            }
            else if (i == to)
            {
                return false;
            }
        }
        if (gap < 0)
        {
            return 16 == b;
        }
        if (b > 14)
        {
            return false;
        }
        final int tail = b - gap;
        System.arraycopy(dst, off + gap, dst, off + 16 - tail, tail);
        for (int z = gap; z < 16 - tail; z++)
        {
            dst[off + z] = 0;
        }
        return true;
    }

    private static boolean isHex(final char c)
    {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int hex(final char c)
    {
        return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    }
}
