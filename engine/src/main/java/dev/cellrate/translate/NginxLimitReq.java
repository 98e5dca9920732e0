package dev.cellrate.translate;

import dev.cellrate.Limit;
import dev.cellrate.RateLimiter;
import dev.cellrate.Shaper;
import dev.cellrate.ShaperMode;

/**
 * One translated NGINX {@code limit_req} (zone rate + {@code burst=} + {@code delay=}/{@code nodelay}):
 * the admission {@link Limit} and the release {@link ShaperMode}.
 * <p>
 * The limit is GCRA(T, B&middot;T) with {@code T = 10^12 / rateMilli} ns, where {@code rateMilli} is NGINX's
 * own {@code ctx->rate} (thousandths of a request per second, after its integer division for {@code r/m})
 * and B the configured burst: from idle B + 1 requests pass at one instant (see
 * {@code docs/translations.md}). NGINX's {@code delay} (default), {@code delay=N} and {@code nodelay} are
 * {@link ShaperMode#delay()}, {@link ShaperMode#delay(long)} and {@link ShaperMode#nodelay()}: a
 * {@link #newShaper()} returns, for each admitted request, exactly the hold
 * {@code ngx_http_limit_req_account} computes (in ns; NGINX truncates it to whole ms).
 *
 * @param limit     the admission contract.
 * @param mode      what happens to an admitted request.
 * @param rateMilli NGINX's {@code ctx->rate}.
 * @param burst     the configured {@code burst=} (B; the limit's burst is B + 1).
 */
public record NginxLimitReq(Limit limit, ShaperMode mode, long rateMilli, long burst)
{
    /**
     * @return a shaper (own cell, system clock) deciding and holding requests as this {@code limit_req}.
     */
    public Shaper newShaper()
    {
        return new Shaper(limit, mode);
    }

    /**
     * @return a policer with the same admissions (what {@code nodelay} forwards; rejects are NGINX's 503/429).
     */
    public RateLimiter newRateLimiter()
    {
        return new RateLimiter(limit);
    }
}
