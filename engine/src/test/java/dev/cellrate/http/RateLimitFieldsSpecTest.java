package dev.cellrate.http;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The edges of the policy-name rules, the promise of {@link RateLimitFields#maxValueLength()}, and the
 * direct-buffer {@code Retry-After}.
 */
class RateLimitFieldsSpecTest
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
