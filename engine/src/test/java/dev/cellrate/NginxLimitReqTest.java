package dev.cellrate;

import dev.cellrate.ShaperMode;
import dev.cellrate.Result;
import dev.cellrate.Limit;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The three modes against NGINX {@code limit_req} semantics, re-derived from nginx 1.26.2
 * {@code src/http/modules/ngx_http_limit_req_module.c} (ngx_http_limit_req_lookup and ngx_http_limit_req_account), modelled here in NGINX's
 * own units: integer ms and thousandths of a request.
 * <p>
 * Derivation: NGINX keeps {@code excess} (thousandths); per request
 * {@code excess = max(0, excess - rate * ms / 1000 + 1000)} with {@code ctx->rate = rate * 1000} and
 * rejects if {@code excess > burst * 1000}. With Y = excess / 1000 + 1 this is GCRA(1/rate, burst/rate), and
 * after accepting, {@code excess / 1000 = (max(t, TAT) - t) / T}: the request's wait in units of T.
 * {@code account} then delays by 0 if {@code excess <= delay * 1000}, else {@code (excess - delay * 1000) *
 * 1000 / ctx->rate} ms = {@code (e - N) * T} for excess e requests: exactly {@link dev.cellrate.gcra.ShaperMath#delayNs}.
 * {@code nodelay} sets delay to NGX_MAX_INT_T_VALUE / 1000, so every admitted request has delay 0.
 */
class NginxLimitReqTest
{
    private static final long NS_PER_MS = 1_000_000;
    private static final long NODELAY = Long.MAX_VALUE / 1000;
    private static final long BUSY = -1;

    /** nginx 1.26.2 limit_req for one key, with rate in r/s; units as in the C code. */
    static final class NginxNode
    {
        final long ctxRate;
        final long burst;
        final long delay;
        boolean exists;
        long excess;
        long last;

        NginxNode(final long ratePerSecond, final long burst, final long delay)
        {
            this.ctxRate = ratePerSecond * 1000;
            this.burst = burst * 1000;
            this.delay = NODELAY == delay ? NODELAY : delay * 1000;
        }

        /** @return {@link #BUSY} or the delay in ms that ngx_http_limit_req_account computes. */
        long request(final long nowMs)
        {
            long excess = 0;
            long ms = 0;
            if (exists)
            {
                ms = nowMs - last;
                if (ms < -60000)
                {
                    ms = 1;
                }
                else if (ms < 0)
                {
                    ms = 0;
                }
                excess = this.excess - ctxRate * ms / 1000 + 1000;
                if (excess < 0)
                {
                    excess = 0;
                }
            }
            if (excess > burst)
            {
                return BUSY;
            }
            this.excess = excess;
            if (!exists || 0 != ms)
            {
                last = nowMs;
            }
            exists = true;
            return excess <= delay ? 0 : (excess - delay) * 1000 / ctxRate;
        }
    }

    private static ShaperMode mode(final long delay)
    {
        return NODELAY == delay ? ShaperMode.nodelay() : ShaperMode.delay(delay);
    }

    /** {@code limit_req rate=R r/s burst=B} is {@code Limit.perSecond(R, B + 1)}. */
    private static Shaper shaper(final long ratePerSecond, final long burst, final long delay)
    {
        return new Shaper(Limit.perSecond(ratePerSecond, burst + 1), mode(delay));
    }

    private static long[] delaysMs(final Shaper shaper, final int requests, final long nowMs)
    {
        final long[] delaysMs = new long[requests];
        for (int i = 0; i < requests; i++)
        {
            final long code = shaper.reserve(1, nowMs * NS_PER_MS);
            delaysMs[i] = Result.isReserved(code) ? code / NS_PER_MS : BUSY;
        }
        return delaysMs;
    }

    @Test
    void rate10Burst5DelaysEachExcessRequestByItsExcessTimesT()
    {
        assertArrayEquals(new long[] {0, 100, 200, 300, 400, 500, BUSY, BUSY}, delaysMs(shaper(10, 5, 0), 8, 0));
    }

    @Test
    void rate10Burst5Delay2SendsTheFirstTwoExcessAtOnceThenSpaces()
    {
        assertArrayEquals(new long[] {0, 0, 0, 100, 200, 300, BUSY, BUSY}, delaysMs(shaper(10, 5, 2), 8, 0));
    }

    @Test
    void rate10Burst5NodelayIsPolicing()
    {
        assertArrayEquals(new long[] {0, 0, 0, 0, 0, 0, BUSY, BUSY}, delaysMs(shaper(10, 5, NODELAY), 8, 0));
    }

    @Test
    void rejectionCarriesTheRetryAfter()
    {
        final Shaper shaper = shaper(10, 5, 0);
        delaysMs(shaper, 6, 0);
        assertEquals(100 * NS_PER_MS, Result.decodeRetryAfterNs(shaper.reserve(1, 0)));
        assertEquals(30 * NS_PER_MS, Result.decodeRetryAfterNs(shaper.reserve(1, 70 * NS_PER_MS)));
        assertEquals(500 * NS_PER_MS, shaper.reserve(1, 100 * NS_PER_MS));
    }

    @Test
    void everyDecisionAndDelayMatchesNginxOnRandomMillisecondTraces()
    {
        final long[] rates = {1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000};
        final SplittableRandom random = new SplittableRandom(1_26_2);
        int delayed = 0;
        for (int trace = 0; trace < 400; trace++)
        {
            final long rate = rates[random.nextInt(rates.length)];
            final long burst = random.nextLong(30);
            final long delay = switch (trace % 3)
            {
                case 0 -> 0;
                case 1 -> random.nextLong(burst + 3);
                default -> NODELAY;
            };
            final NginxNode nginx = new NginxNode(rate, burst, delay);
            final Shaper shaper = shaper(rate, burst, delay);
            final long periodMs = 1000 / rate;
            long nowMs = random.nextLong(1L << 40);
            for (int i = 0; i < 1_000; i++)
            {
                if (random.nextInt(3) == 0)
                {
                    nowMs += random.nextLong(3 * periodMs + 1);
                }
                final long expectedMs = nginx.request(nowMs);
                final long code = shaper.reserve(1, nowMs * NS_PER_MS);
                final String context = "rate=" + rate + "r/s burst=" + burst + " delay=" + delay + " request " + i;
                assertEquals(BUSY != expectedMs, Result.isReserved(code), context);
                if (BUSY != expectedMs)
                {
                    assertEquals(expectedMs * NS_PER_MS, code, context);
                    delayed += expectedMs > 0 ? 1 : 0;
                }
            }
        }
        assertEquals(true, delayed > 10_000, "traces exercise delays: " + delayed);
    }
}
