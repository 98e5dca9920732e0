package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The breaker opens on a failure rate over a window of recent calls, once a minimum of calls was recorded; a few
 * failures in a row among many answers do not open it.
 */
class CircuitBreakerTest
{
    private static final long OPEN_NS = 1_000_000_000L;

    @Test
    void belowTheMinimumNumberOfCallsItStaysClosed()
    {
        final CircuitBreaker breaker = new CircuitBreaker(10, 5, 50, OPEN_NS);
        for (int i = 0; i < 4; i++)
        {
            breaker.failure(0);
            assertFalse(breaker.isOpen(), "failure " + i);
        }
        breaker.failure(0);
        assertTrue(breaker.isOpen(), "5 of 5 failed");
        assertEquals(1, breaker.openings());
    }

    @Test
    void fiveFailuresInARowAmongManyAnswersDoNotOpenIt()
    {
        final CircuitBreaker breaker = new CircuitBreaker(100, 20, 50, OPEN_NS);
        for (int round = 0; round < 50; round++)
        {
            for (int i = 0; i < 95; i++)
            {
                breaker.success();
            }
            for (int i = 0; i < 5; i++)
            {
                breaker.failure(0);
            }
            assertFalse(breaker.isOpen(), "5 % failed, round " + round);
        }
        assertEquals(0, breaker.openings());
    }

    @Test
    void itOpensWhenTheRateOverTheWindowReachesTheThreshold()
    {
        final CircuitBreaker breaker = new CircuitBreaker(100, 20, 50, OPEN_NS);
        for (int i = 0; i < 200; i++)
        {
            breaker.success();
        }
        int failures = 0;
        while (!breaker.isOpen())
        {
            breaker.success();
            breaker.failure(0);
            failures++;
            assertTrue(failures <= 50, "opened at half of the last 100 calls failed");
        }
        assertEquals(50, failures);
    }

    @Test
    void oneProbeAfterTheOpenPeriodClosesItAndClearsTheWindow()
    {
        final CircuitBreaker breaker = new CircuitBreaker(10, 5, 50, OPEN_NS);
        for (int i = 0; i < 5; i++)
        {
            breaker.failure(100);
        }
        assertTrue(breaker.isOpen());
        assertFalse(breaker.allow(100 + OPEN_NS - 1), "open for its period");
        assertTrue(breaker.allow(100 + OPEN_NS), "one probe");
        assertFalse(breaker.allow(100 + OPEN_NS), "only one probe");
        breaker.failure(100 + OPEN_NS);
        assertEquals(2, breaker.openings(), "a failed probe opens it again");
        assertFalse(breaker.allow(100 + 2 * OPEN_NS - 1));
        assertTrue(breaker.allow(100 + 2 * OPEN_NS));
        breaker.success();
        assertFalse(breaker.isOpen(), "a successful probe closes it");
        assertTrue(breaker.allow(0));
        for (int i = 0; i < 4; i++)
        {
            breaker.failure(0);
        }
        assertFalse(breaker.isOpen(), "the window was cleared: 4 calls are below the minimum again");
        breaker.failure(0);
        assertTrue(breaker.isOpen());
    }
}
