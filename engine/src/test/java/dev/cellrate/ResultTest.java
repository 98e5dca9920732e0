package dev.cellrate;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One code space: every code constant of {@link Result} is named by {@link Result#name(long)}, no two codes
 * share a value, the ranges are disjoint, and admission is answered once for every front.
 */
final class ResultTest
{
    @Test
    void everyCodeHasItsOwnNameAndValue()
    {
        final Map<Long, String> byValue = new HashMap<>();
        int codes = 0;
        for (final Field field : Result.class.getFields())
        {
            final String name = field.getName();
            if (!Modifier.isStatic(field.getModifiers()) || field.getType() != long.class || isRangeBound(name))
            {
                continue;
            }
            final long value = readLong(field);
            assertNull(byValue.put(value, name), name + " collides with another code at " + value);
            assertEquals(name, Result.name(value), "Result.name(" + value + ")");
            codes++;
        }
        assertEquals(13, codes, "ADMITTED, five shared codes, three keyed codes, one operating code, three distributed codes");
    }

    @Test
    void rangesAreDisjointAndOrdered()
    {
        assertTrue(Result.SHARED_RANGE_FIRST > Result.SHARED_RANGE_LAST);
        assertTrue(Result.SHARED_RANGE_LAST > Result.KEYED_RANGE_FIRST);
        assertTrue(Result.KEYED_RANGE_FIRST > Result.KEYED_RANGE_LAST);
        assertTrue(Result.KEYED_RANGE_LAST > Result.OPERATING_RANGE_FIRST);
        assertTrue(Result.OPERATING_RANGE_FIRST > Result.OPERATING_RANGE_LAST);
        assertTrue(Result.OPERATING_RANGE_LAST > Result.DISTRIBUTED_RANGE_FIRST);
        assertTrue(Result.DISTRIBUTED_RANGE_FIRST > Result.DISTRIBUTED_RANGE_LAST);
        assertTrue(Result.DISTRIBUTED_RANGE_LAST > Result.ENCODED_RETRY_AFTER_BASE);
        for (final long code : new long[]{Result.ADMITTED_FAIL_OPEN, Result.REJECTED_FAIL_CLOSED})
        {
            assertTrue(code <= Result.DISTRIBUTED_RANGE_FIRST && code >= Result.DISTRIBUTED_RANGE_LAST, "store " + code);
        }
        assertTrue(Result.WOULD_HAVE_REJECTED <= Result.OPERATING_RANGE_FIRST &&
            Result.WOULD_HAVE_REJECTED >= Result.OPERATING_RANGE_LAST);
        for (final long code : new long[]{Result.NEVER, Result.TABLE_FULL, Result.CONCURRENCY_FULL,
            Result.QUEUE_FULL, Result.CLOSED})
        {
            assertTrue(code <= Result.SHARED_RANGE_FIRST && code >= Result.SHARED_RANGE_LAST, "shared " + code);
        }
        for (final long code : new long[]{Result.ADMITTED_TABLE_FULL, Result.ADMITTED_OVERFLOW,
            Result.REJECTED_OVERFLOW})
        {
            assertTrue(code <= Result.KEYED_RANGE_FIRST && code >= Result.KEYED_RANGE_LAST, "keyed " + code);
        }
    }

    @Test
    void theOldMinusSeventeenCollisionIsGone()
    {
        // -17 was both KeyedRateLimiter.ADMITTED_OVERFLOW and the shaper's "retry after 1 ns".
        assertEquals("ADMITTED_OVERFLOW", Result.name(Result.ADMITTED_OVERFLOW));
        final long retryAfterOneNs = Result.encodeRetryAfter(1);
        assertTrue(retryAfterOneNs < Result.KEYED_RANGE_LAST, "encoded retry-after lies below every named range");
        assertEquals("ENCODED_RETRY_AFTER", Result.name(retryAfterOneNs));
        assertEquals(1, Result.decodeRetryAfterNs(retryAfterOneNs));
        assertFalse(Result.isEncodedRetryAfter(Result.ADMITTED_OVERFLOW));
        assertEquals(0, Result.decodeRetryAfterNs(Result.ADMITTED_OVERFLOW));
    }

    @Test
    void encodedRetryAfterRoundTripsAndClamps()
    {
        for (final long r : new long[]{1, 2, 1_000, Long.MAX_VALUE / 2, Result.MAX_ENCODED_RETRY_AFTER_NS})
        {
            final long code = Result.encodeRetryAfter(r);
            assertTrue(Result.isEncodedRetryAfter(code));
            assertFalse(Result.isReserved(code));
            assertFalse(Result.isAdmitted(code));
            assertEquals(r, Result.decodeRetryAfterNs(code));
        }
        assertEquals(Long.MIN_VALUE, Result.encodeRetryAfter(Long.MAX_VALUE), "clamped, never wraps");
    }

    @Test
    void admissionIsAnsweredOnceForEveryConvention()
    {
        assertTrue(Result.isAdmitted(Result.ADMITTED));
        assertTrue(Result.isAdmitted(Result.ADMITTED_TABLE_FULL));
        assertTrue(Result.isAdmitted(Result.ADMITTED_OVERFLOW));
        assertFalse(Result.isAdmitted(Result.REJECTED_OVERFLOW));
        assertFalse(Result.isAdmitted(1), "a positive decision code is a retry-after");
        for (long code = Result.SHARED_RANGE_FIRST; code >= Result.SHARED_RANGE_LAST; code--)
        {
            assertFalse(Result.isAdmitted(code));
            assertFalse(Result.isReserved(code));
        }
        assertTrue(Result.isReserved(0));
        assertTrue(Result.isReserved(5), "a positive reservation code is a delay");
        assertEquals("POSITIVE_NS", Result.name(5));
        assertEquals("UNASSIGNED", Result.name(-6));
        assertEquals("UNASSIGNED", Result.name(-19));
        assertEquals("WOULD_HAVE_REJECTED", Result.name(-32));
        assertTrue(Result.isAdmitted(Result.WOULD_HAVE_REJECTED), "dry-run lets the request through");
        assertFalse(Result.isReserved(Result.WOULD_HAVE_REJECTED));
        assertEquals("UNASSIGNED", Result.name(-33));
        assertTrue(Result.isAdmitted(Result.ADMITTED_FAIL_OPEN), "fail-open lets the request through");
        assertFalse(Result.isAdmitted(Result.REJECTED_FAIL_CLOSED));
        assertEquals("REJECTED_KEY_ERROR", Result.name(-50));
        assertEquals("RESERVED", Result.name(-64));
        assertEquals("RESERVED", Result.name(Result.ENCODED_RETRY_AFTER_BASE));
    }

    private static boolean isRangeBound(final String name)
    {
        return name.endsWith("_FIRST") || name.endsWith("_LAST") || name.startsWith("ENCODED_") ||
            name.startsWith("MAX_");
    }

    private static long readLong(final Field field)
    {
        try
        {
            return field.getLong(null);
        }
        catch (final IllegalAccessException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
