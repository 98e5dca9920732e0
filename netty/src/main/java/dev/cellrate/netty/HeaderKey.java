package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AsciiString;

/**
 * A request header as the key (an API key, a tenant id). Absent, empty, longer than the maximum or not
 * visible ASCII: {@link #NO_KEY}. Copies the value's chars into the caller's buffer; allocates nothing.
 */
public final class HeaderKey implements KeyExtractor
{
    private final AsciiString name;
    private final int maxLength;

    /**
     * @param name      the header name.
     * @param maxLength the longest accepted value, in [1, {@link #MAX_KEY_LENGTH}].
     */
    public HeaderKey(final String name, final int maxLength)
    {
        if (null == name || name.isEmpty())
        {
            throw new IllegalArgumentException("name must not be empty");
        }
        if (maxLength < 1 || maxLength > MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("maxLength must be in [1, " + MAX_KEY_LENGTH + "] but was " + maxLength);
        }
        this.name = AsciiString.cached(name.toLowerCase(java.util.Locale.ROOT));
        this.maxLength = maxLength;
    }

    public int extract(final Channel channel, final HttpRequest request, final byte[] dst)
    {
        final CharSequence value = request.headers().get(name);
        if (null == value)
        {
            return NO_KEY;
        }
        final int length = value.length();
        if (0 == length || length > maxLength)
        {
            return NO_KEY;
        }
        for (int i = 0; i < length; i++)
        {
            final char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E)
            {
                return NO_KEY;
            }
            dst[i] = (byte)c;
        }
        return length;
    }
}
