package dev.cellrate.http;

import dev.cellrate.check.Bounds;
import dev.cellrate.Decision;
import dev.cellrate.Limit;
import org.agrona.MutableDirectBuffer;

/**
 * Writes the HTTP rate-limit field values of one policy as ASCII into a caller's buffer, with no allocation:
 * <ul>
 *     <li>{@code Retry-After}: delay-seconds (RFC 9110 &sect;10.2.3), the retry-after <b>rounded up</b> to a
 *     whole second, so a client that waits the advertised time is never early.</li>
 *     <li>{@code RateLimit-Policy: "name";q=<quota>;w=<window s>} and
 *     {@code RateLimit: "name";r=<remaining>;t=<s until reset>}: Structured-Field Lists of one Item each,
 *     the policy identifier a String (draft-ietf-httpapi-ratelimit-headers-10/-11).</li>
 *     <li>the legacy {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (delta seconds) values.</li>
 * </ul>
 * <b>Mapping GCRA onto a quota.</b> A limit of rate {@code 1/T} and burst {@code b} is advertised as
 * {@code q = b} units per {@code w = ceil(b * T / 1 s)} seconds (at least 1). Rounding the window up
 * advertises a rate never above the real one: a client that spreads {@code q} requests over {@code w}
 * seconds is never refused for it. {@code r} is {@link Decision#remaining()} (single permits that would
 * still conform at the decision's instant); {@code t} is {@link Decision#resetAfterNs()} rounded up: after
 * {@code t} seconds of silence the bucket is full again.
 * <p>
 * Every {@code write*} method returns the number of bytes written. The destination must have room for
 * {@link #maxValueLength()} bytes (at most 20 digits per number); the methods do not check.
 * <p>
 * Threading: immutable after construction; any thread may call any method.
 */
public final class RateLimitFields
{
    /** Nanoseconds per second. */
    public static final long NS_PER_SECOND = 1_000_000_000L;

    /** Longest policy name accepted. */
    public static final int MAX_NAME_LENGTH = 64;

    /** Most digits of a non-negative {@code long}. */
    public static final int MAX_LONG_DIGITS = 19;

    private static final byte[] R_PARAM = {';', 'r', '='};
    private static final byte[] T_PARAM = {';', 't', '='};

    private final byte[] quotedName;
    private final byte[] policyValue;
    private final Limit limit;
    private final long windowSeconds;

    /**
     * @param policyName the policy identifier: 1..{@link #MAX_NAME_LENGTH} printable ASCII characters
     *                   (0x20..0x7E); {@code "} and {@code \} are escaped as the sf-string rules require.
     * @param limit      the limit the policy advertises.
     * @throws IllegalArgumentException naming the field and what it allows.
     */
    public RateLimitFields(final String policyName, final Limit limit)
    {
        Bounds.requireNonNull("limit", limit);
        if (null == policyName || policyName.isEmpty() || policyName.length() > MAX_NAME_LENGTH)
        {
            throw new IllegalArgumentException(
                "policyName must be 1.." + MAX_NAME_LENGTH + " printable ASCII characters but was " + policyName);
        }
        int escaped = 0;
        for (int i = 0; i < policyName.length(); i++)
        {
            final char c = policyName.charAt(i);
            if (c < 0x20 || c > 0x7E)
            {
                throw new IllegalArgumentException(
                    "policyName must be printable ASCII (0x20..0x7E) but has 0x" + Integer.toHexString(c) +
                    " at index " + i);
            }
            if ('"' == c || '\\' == c)
            {
                escaped++;
            }
        }
        final byte[] quoted = new byte[policyName.length() + escaped + 2];
        int p = 0;
        quoted[p++] = '"';
        for (int i = 0; i < policyName.length(); i++)
        {
            final char c = policyName.charAt(i);
            if ('"' == c || '\\' == c)
            {
                quoted[p++] = '\\';
            }
            quoted[p++] = (byte)c;
        }
        quoted[p] = '"';
        this.quotedName = quoted;
        this.limit = limit;
        final long burstNs = limit.burst() * limit.emissionIntervalNs(); // <= ceiling <= 2^62: no overflow
        this.windowSeconds = Math.max(1, ceilSeconds(burstNs));

        final byte[] scratch = new byte[quoted.length + 2 * (3 + MAX_LONG_DIGITS)];
        int n = copy(quoted, scratch, 0);
        scratch[n++] = ';';
        scratch[n++] = 'q';
        scratch[n++] = '=';
        n += writeLong(limit.burst(), scratch, n);
        scratch[n++] = ';';
        scratch[n++] = 'w';
        scratch[n++] = '=';
        n += writeLong(windowSeconds, scratch, n);
        this.policyValue = java.util.Arrays.copyOf(scratch, n);
    }

    /**
     * @param ns a duration in ns; &le; 0 is 0.
     * @return the duration in whole seconds rounded up (never shorter than {@code ns}).
     */
    public static long ceilSeconds(final long ns)
    {
        if (ns <= 0)
        {
            return 0;
        }
        return (ns - 1) / NS_PER_SECOND + 1;
    }

    /**
     * Write a non-negative decimal number (negative values are written as 0).
     *
     * @param value the number.
     * @param dst   destination.
     * @param off   first byte.
     * @return bytes written, 1..19.
     */
    public static int writeLong(final long value, final byte[] dst, final int off)
    {
        long v = Math.max(0, value);
        final int len = digits(v);
        for (int i = off + len - 1; i >= off; i--)
        {
            dst[i] = (byte)('0' + (int)(v % 10));
            v /= 10;
        }
        return len;
    }

    /**
     * As {@link #writeLong(long, byte[], int)} into a buffer.
     *
     * @param value the number.
     * @param dst   destination.
     * @param off   first byte.
     * @return bytes written, 1..19.
     */
    public static int writeLong(final long value, final MutableDirectBuffer dst, final int off)
    {
        long v = Math.max(0, value);
        final int len = digits(v);
        for (int i = off + len - 1; i >= off; i--)
        {
            dst.putByte(i, (byte)('0' + (int)(v % 10)));
            v /= 10;
        }
        return len;
    }

    /**
     * Delay-seconds of a duration, rounded up ({@code Retry-After}, legacy {@code X-RateLimit-Reset}).
     *
     * @param ns  the duration in ns.
     * @param dst destination.
     * @param off first byte.
     * @return bytes written.
     */
    public static int writeDelaySeconds(final long ns, final byte[] dst, final int off)
    {
        return writeLong(ceilSeconds(ns), dst, off);
    }

    /**
     * @param ns  the duration in ns.
     * @param dst destination.
     * @param off first byte.
     * @return bytes written.
     */
    public static int writeDelaySeconds(final long ns, final MutableDirectBuffer dst, final int off)
    {
        return writeLong(ceilSeconds(ns), dst, off);
    }

    /**
     * The {@code Retry-After} value of a decision. Callers should omit the field when
     * {@link Decision#retryAfterNs()} is {@link Long#MAX_VALUE} (the request can never conform).
     *
     * @param decision the decision.
     * @param dst      destination.
     * @param off      first byte.
     * @return bytes written.
     */
    public int writeRetryAfter(final Decision decision, final byte[] dst, final int off)
    {
        return writeDelaySeconds(decision.retryAfterNs(), dst, off);
    }

    /**
     * @param decision the decision.
     * @param dst      destination.
     * @param off      first byte.
     * @return bytes written.
     */
    public int writeRetryAfter(final Decision decision, final MutableDirectBuffer dst, final int off)
    {
        return writeDelaySeconds(decision.retryAfterNs(), dst, off);
    }

    /**
     * The {@code RateLimit-Policy} value, {@code "name";q=<burst>;w=<window s>}.
     *
     * @param dst destination.
     * @param off first byte.
     * @return bytes written.
     */
    public int writePolicy(final byte[] dst, final int off)
    {
        return copy(policyValue, dst, off);
    }

    /**
     * @param dst destination.
     * @param off first byte.
     * @return bytes written.
     */
    public int writePolicy(final MutableDirectBuffer dst, final int off)
    {
        dst.putBytes(off, policyValue);
        return policyValue.length;
    }

    /**
     * The {@code RateLimit} value, {@code "name";r=<remaining>;t=<s until reset>}.
     *
     * @param decision the decision.
     * @param dst      destination.
     * @param off      first byte.
     * @return bytes written.
     */
    public int writeRateLimit(final Decision decision, final byte[] dst, final int off)
    {
        int n = copy(quotedName, dst, off);
        n += copy(R_PARAM, dst, off + n);
        n += writeLong(decision.remaining(), dst, off + n);
        n += copy(T_PARAM, dst, off + n);
        n += writeDelaySeconds(decision.resetAfterNs(), dst, off + n);
        return n;
    }

    /**
     * @param decision the decision.
     * @param dst      destination.
     * @param off      first byte.
     * @return bytes written.
     */
    public int writeRateLimit(final Decision decision, final MutableDirectBuffer dst, final int off)
    {
        int n = off;
        dst.putBytes(n, quotedName);
        n += quotedName.length;
        dst.putBytes(n, R_PARAM);
        n += R_PARAM.length;
        n += writeLong(decision.remaining(), dst, n);
        dst.putBytes(n, T_PARAM);
        n += T_PARAM.length;
        n += writeDelaySeconds(decision.resetAfterNs(), dst, n);
        return n - off;
    }

    /**
     * Legacy {@code X-RateLimit-Limit}: the burst.
     *
     * @param dst destination.
     * @param off first byte.
     * @return bytes written.
     */
    public int writeLegacyLimit(final byte[] dst, final int off)
    {
        return writeLong(limit.burst(), dst, off);
    }

    /**
     * Legacy {@code X-RateLimit-Remaining}.
     *
     * @param decision the decision.
     * @param dst      destination.
     * @param off      first byte.
     * @return bytes written.
     */
    public int writeLegacyRemaining(final Decision decision, final byte[] dst, final int off)
    {
        return writeLong(decision.remaining(), dst, off);
    }

    /**
     * Legacy {@code X-RateLimit-Reset}, as delta seconds rounded up (not an epoch time).
     *
     * @param decision the decision.
     * @param dst      destination.
     * @param off      first byte.
     * @return bytes written.
     */
    public int writeLegacyReset(final Decision decision, final byte[] dst, final int off)
    {
        return writeDelaySeconds(decision.resetAfterNs(), dst, off);
    }

    /**
     * @return the longest value any {@code write*} method of this instance can produce.
     */
    public int maxValueLength()
    {
        return Math.max(policyValue.length, quotedName.length + 2 * (R_PARAM.length + MAX_LONG_DIGITS));
    }

    /**
     * @return the advertised window {@code w} in seconds.
     */
    public long windowSeconds()
    {
        return windowSeconds;
    }

    /**
     * @return the limit.
     */
    public Limit limit()
    {
        return limit;
    }

    private static int digits(final long v)
    {
        int len = 1;
        long bound = 10;
        while (len < MAX_LONG_DIGITS && v >= bound)
        {
            len++;
            bound *= 10;
        }
        return len;
    }

    private static int copy(final byte[] src, final byte[] dst, final int off)
    {
        System.arraycopy(src, 0, dst, off, src.length);
        return src.length;
    }
}
