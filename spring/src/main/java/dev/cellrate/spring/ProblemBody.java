package dev.cellrate.spring;

import dev.cellrate.http.RateLimitFields;

import java.nio.charset.StandardCharsets;

/**
 * The RFC 9457 problem body of a rejection ({@code application/problem+json}).
 */
final class ProblemBody
{
    static final String CONTENT_TYPE = "application/problem+json";

    private ProblemBody()
    {
    }

    /**
     * @param limit        the refusing limit's name (a JSON-safe printable ASCII name is escaped).
     * @param retryAfterNs the retry-after, or {@link Long#MAX_VALUE} if none.
     * @return the body's bytes.
     */
    static byte[] of(final String limit, final long retryAfterNs)
    {
        final StringBuilder b = new StringBuilder(160)
            .append("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"rate limit ");
        escape(limit, b);
        b.append(" exceeded\",\"limit\":\"");
        escape(limit, b);
        b.append('"');
        if (Long.MAX_VALUE != retryAfterNs && retryAfterNs > 0)
        {
            b.append(",\"retryAfter\":").append(RateLimitFields.ceilSeconds(retryAfterNs));
        }
        return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void escape(final String s, final StringBuilder b)
    {
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if ('"' == c || '\\' == c)
            {
                b.append('\\');
            }
            if (c >= 0x20)
            {
                b.append(c);
            }
        }
    }
}
