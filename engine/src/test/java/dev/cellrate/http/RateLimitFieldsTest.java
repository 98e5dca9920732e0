package dev.cellrate.http;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Result;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

final class RateLimitFieldsTest
{
    private static String ascii(final byte[] b, final int len)
    {
        return new String(b, 0, len, StandardCharsets.US_ASCII);
    }

    @Test
    void ceilSecondsRoundsUpNeverDown()
    {
        assertEquals(0, RateLimitFields.ceilSeconds(0));
        assertEquals(0, RateLimitFields.ceilSeconds(-5));
        assertEquals(1, RateLimitFields.ceilSeconds(1));
        assertEquals(1, RateLimitFields.ceilSeconds(1_000_000_000L));
        assertEquals(2, RateLimitFields.ceilSeconds(1_000_000_001L));
        assertEquals(9_223_372_037L, RateLimitFields.ceilSeconds(Long.MAX_VALUE));
    }

    @Test
    void writeLongEveryLength()
    {
        final byte[] dst = new byte[32];
        long v = 0;
        for (int digits = 1; digits <= 19; digits++)
        {
            final int n = RateLimitFields.writeLong(v, dst, 3);
            assertEquals(Long.toString(v), new String(dst, 3, n, StandardCharsets.US_ASCII));
            v = v * 10 + 9;
        }
        final int n = RateLimitFields.writeLong(Long.MAX_VALUE, dst, 0);
        assertEquals(Long.toString(Long.MAX_VALUE), ascii(dst, n));
        assertEquals("0", ascii(dst, RateLimitFields.writeLong(-7, dst, 0)));
    }

    @Test
    void policyAndRateLimitFromADecision()
    {
        final Limit limit = Limit.perSecond(10, 10); // T = 100 ms, b = 10: q=10 per w=1 s
        final RateLimitFields fields = new RateLimitFields("per-client", limit);
        final byte[] dst = new byte[fields.maxValueLength()];
        assertEquals("\"per-client\";q=10;w=1", ascii(dst, fields.writePolicy(dst, 0)));

        final RateLimiter limiter = new RateLimiter(limit);
        final Decision decision = new Decision();
        final long t0 = 1_000_000_000_000L;
        for (int i = 0; i < 3; i++)
        {
            limiter.tryAcquire(1, t0, decision);
        }
        // 3 of 10 taken: 7 remain, 300 ms until full again -> t=1
        assertEquals("\"per-client\";r=7;t=1", ascii(dst, fields.writeRateLimit(decision, dst, 0)));
        assertEquals("7", ascii(dst, fields.writeLegacyRemaining(decision, dst, 0)));
        assertEquals("10", ascii(dst, fields.writeLegacyLimit(dst, 0)));
        assertEquals("1", ascii(dst, fields.writeLegacyReset(decision, dst, 0)));
        for (int i = 0; i < 7; i++)
        {
            limiter.tryAcquire(1, t0, decision);
        }
        final long code = limiter.tryAcquire(1, t0 + 1, decision);
        assertTrue(code > 0);
        assertEquals(decision.retryAfterNs(), code);
        // retry-after 100 ms - 1 ns: rounded up to 1 s
        assertEquals("1", ascii(dst, fields.writeRetryAfter(decision, dst, 0)));
        assertEquals("\"per-client\";r=0;t=1", ascii(dst, fields.writeRateLimit(decision, dst, 0)));
    }

    @Test
    void windowIsRoundedUpSoTheAdvertisedRateIsNeverAboveTheRealOne()
    {
        // 1 per minute, burst 3: 3 per 180 s
        assertEquals("\"m\";q=3;w=180", policy(new RateLimitFields("m", Limit.of(1, 1, TimeUnit.MINUTES, 3))));
        // 3 per 2 s (T = 666 666 667 ns), burst 2: 2 * T = 1.33 s -> w=2
        assertEquals("\"a\";q=2;w=2", policy(new RateLimitFields("a", Limit.of(3, 2, TimeUnit.SECONDS, 2))));
        // 1000/s, burst 1: w is at least 1
        assertEquals("\"f\";q=1;w=1", policy(new RateLimitFields("f", Limit.perSecond(1000, 1))));
    }

    @Test
    void nameIsAnEscapedSfString()
    {
        assertEquals("\"a\\\"b\\\\c\";q=1;w=1", policy(new RateLimitFields("a\"b\\c", Limit.perSecond(1, 1))));
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> new RateLimitFields("bad\nname", Limit.perSecond(1, 1)));
        assertTrue(e.getMessage().contains("policyName"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RateLimitFields("", Limit.perSecond(1, 1)));
        assertThrows(IllegalArgumentException.class, () -> new RateLimitFields("x", null));
    }

    @Test
    void directBufferFormsMatchTheArrayForms()
    {
        final RateLimitFields fields = new RateLimitFields("p", Limit.perSecond(5, 20));
        final Decision decision = new Decision().setOutcome(Result.ADMITTED, 12, 2_500_000_001L, 20);
        final byte[] a = new byte[64];
        final UnsafeBuffer b = new UnsafeBuffer(new byte[64]);
        final int na = fields.writeRateLimit(decision, a, 1);
        final int nb = fields.writeRateLimit(decision, b, 1);
        assertEquals("\"p\";r=12;t=3", new String(a, 1, na, StandardCharsets.US_ASCII));
        assertEquals(ascii(java.util.Arrays.copyOfRange(a, 1, 1 + na), na), b.getStringWithoutLengthAscii(1, nb));
        assertEquals(fields.writePolicy(a, 0), fields.writePolicy(b, 0));
        assertEquals(ascii(a, 12), b.getStringWithoutLengthAscii(0, 12));
        assertEquals(1, RateLimitFields.writeDelaySeconds(1, b, 0));
        assertEquals("1", b.getStringWithoutLengthAscii(0, 1));
    }

    @Test
    void formattingAllocatesNothing()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assertions.assertTrue(bean instanceof com.sun.management.ThreadMXBean, "this JVM counts allocated bytes per thread");
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assertions.assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM counts allocated bytes per thread");
        final RateLimitFields fields = new RateLimitFields("p", Limit.perSecond(100, 50));
        final Decision decision = new Decision();
        final RateLimiter limiter = new RateLimiter(Limit.perSecond(100, 50));
        final byte[] dst = new byte[fields.maxValueLength()];
        final UnsafeBuffer buf = new UnsafeBuffer(new byte[fields.maxValueLength()]);
        final long threadId = Thread.currentThread().getId();
        long minBytes = Long.MAX_VALUE;
        long sink = 0;
        for (int round = 0; round < 6 && minBytes != 0; round++)
        {
            final long before = threads.getThreadAllocatedBytes(threadId);
            for (int i = 0; i < 200_000; i++)
            {
                limiter.tryAcquire(1, i * 1_000_000L, decision);
                sink += fields.writeRateLimit(decision, dst, 0) + fields.writeRetryAfter(decision, dst, 0) +
                    fields.writePolicy(dst, 0) + fields.writeLegacyReset(decision, dst, 0) +
                    fields.writeRateLimit(decision, buf, 0) + fields.writeRetryAfter(decision, buf, 0);
            }
            minBytes = Math.min(minBytes, threads.getThreadAllocatedBytes(threadId) - before);
        }
        assertTrue(sink > 0);
        assertEquals(0, minBytes);
    }

    private static String policy(final RateLimitFields fields)
    {
        final byte[] dst = new byte[fields.maxValueLength()];
        return ascii(dst, fields.writePolicy(dst, 0));
    }

    /**
     * The edges of the policy-name rules, the promise of {@link RateLimitFields#maxValueLength()}, and the
     * direct-buffer {@code Retry-After}.
     */
    @Nested
    final class Specification
    {
        private static final Limit LIMIT = Limit.perSecond(5, 20);

        @Test
        void namesOfSixtyFourCharactersAreAcceptedAndLongerOnesRefused()
        {
            final String longest = "n".repeat(RateLimitFields.MAX_NAME_LENGTH);
            final RateLimitFields fields = new RateLimitFields(longest, LIMIT);
            final byte[] dst = new byte[fields.maxValueLength()];
            assertEquals("\"" + longest + "\";q=20;w=4",
                new String(dst, 0, fields.writePolicy(dst, 0), StandardCharsets.US_ASCII));
            assertThrows(IllegalArgumentException.class, () -> new RateLimitFields(longest + "n", LIMIT));
        }

        @Test
        void everyPrintableAsciiCharacterIsAcceptedAndNothingOutsideIt()
        {
            new RateLimitFields(" ~", LIMIT); // 0x20 and 0x7E, the two ends
            assertThrows(IllegalArgumentException.class, () -> new RateLimitFields("a\u001f", LIMIT));
            assertThrows(IllegalArgumentException.class, () -> new RateLimitFields("a\u007f", LIMIT));
        }

        @Test
        void aBufferOfMaxValueLengthHoldsTheLongestRateLimitValue()
        {
            for (final String name : new String[] {"p", "\"".repeat(RateLimitFields.MAX_NAME_LENGTH)})
            {
                final RateLimitFields fields = new RateLimitFields(name, LIMIT);
                final Decision worst = new Decision().setOutcome(Result.ADMITTED, Long.MAX_VALUE, Long.MAX_VALUE, 20);
                final byte[] dst = new byte[fields.maxValueLength()];
                final int n = fields.writeRateLimit(worst, dst, 0);
                final String quoted = "\"" + name.replace("\"", "\\\"") + "\"";
                assertEquals(quoted + ";r=" + Long.MAX_VALUE + ";t=9223372037",
                    new String(dst, 0, n, StandardCharsets.US_ASCII));
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[fields.maxValueLength()]);
                assertEquals(n, fields.writeRateLimit(worst, buffer, 0));
            }
        }

        @Test
        void retryAfterIntoADirectBufferIsRoundedUpSeconds()
        {
            final RateLimitFields fields = new RateLimitFields("p", LIMIT);
            assertSame(LIMIT, fields.limit());
            assertEquals(4, fields.windowSeconds(), "20 permits at 5/s");
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[32]);
            final Decision decision = new Decision().setOutcome(12_000_000_001L, 0, 12_000_000_001L, 20);
            final int n = fields.writeRetryAfter(decision, buffer, 3);
            assertEquals(2, n);
            assertEquals("13", buffer.getStringWithoutLengthAscii(3, n));
        }
    }
}
