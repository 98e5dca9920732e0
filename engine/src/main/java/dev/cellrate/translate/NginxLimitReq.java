package dev.cellrate.translate;

import dev.cellrate.Limit;

/**
 * One translated NGINX {@code limit_req} (zone rate + {@code burst=} + {@code delay=}/{@code nodelay}):
 * the admission {@link Limit} and the post-admission {@link NginxDelay} mode.
 * <p>
 * The limit is GCRA(T, B&middot;T) with {@code T = 10^12 / rateMilli} ns, where {@code rateMilli} is NGINX's
 * own {@code ctx->rate} (requests per 1000 s, after its integer division for {@code r/m}) and B the
 * configured burst: from idle B + 1 requests pass at one instant (see {@code docs/translations.md}).
 *
 * @param limit      the admission contract.
 * @param delay      what happens to an admitted request.
 * @param rateMilli  NGINX's {@code ctx->rate}: thousandths of a request per second.
 * @param burst      the configured {@code burst=} (B; the limit's burst is B + 1).
 */
public record NginxLimitReq(Limit limit, NginxDelay delay, long rateMilli, long burst)
{
    /**
     * The time NGINX holds an admitted request before forwarding it ({@code ngx_http_limit_req_account}),
     * exactly in ns (NGINX itself truncates it to whole ms): the request's excess lag beyond the first
     * {@code delay=N} excess requests, {@code max(0, lagBeforeCharge - N*T)}. For the default mode this is
     * {@code max(t, TAT) - t}, the GCRA release time; for {@code nodelay} it is always 0. Allocation-free.
     *
     * @param tatAfterNs the cell's TAT just after this request was admitted (TAT before + T, or t + T).
     * @param nowNs      the time of the request.
     * @return ns to hold the request, &ge; 0.
     */
    public long holdNs(final long tatAfterNs, final long nowNs)
    {
        final long emissionIntervalNs = limit.emissionIntervalNs();
        final long lagBeforeNs = tatAfterNs - emissionIntervalNs - nowNs;
        final long immediateExcess = delay.immediateExcess();
        if (lagBeforeNs <= 0 || immediateExcess >= burst)
        {
            return 0;
        }
        final long holdNs = lagBeforeNs - immediateExcess * emissionIntervalNs;
        return holdNs > 0 ? holdNs : 0;
    }
}
