package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Spring Cloud Gateway {@code RateLimiter} on cellrate's limits: it plugs into the {@code RequestRateLimiter}
 * filter with any {@code KeyResolver}, the resolved key being the limit's key.
 * <pre>
 *   filters:
 *     - name: RequestRateLimiter
 *       args:
 *         rate-limiter: "#{&#64;cellrateRateLimiter}"
 *         key-resolver: "#{&#64;clientKeyResolver}"
 *         cellrate-rate-limiter.limit: per-client
 *         cellrate-rate-limiter.cost: 1
 * </pre>
 * A route without arguments uses the first configured limit.
 * <p>
 * It never blocks the event loop: a local decision is made on the calling thread and answered with
 * {@code Mono.just}; a Redis decision uses cellrate-redis's asynchronous API and completes on Lettuce's I/O
 * thread. The response headers carry {@code Retry-After} (rounded up) on a rejection and the limit's
 * rate-limit fields; a dry-run limit admits and marks {@code X-RateLimit-Dry-Run: would-reject}.
 */
public final class CellrateRateLimiter extends AbstractRateLimiter<CellrateRateLimiter.Config>
{
    /** The prefix of this limiter's route arguments. */
    public static final String CONFIGURATION_PROPERTY_NAME = "cellrate-rate-limiter";

    private final LimitRegistry registry;

    /**
     * @param registry             the limits.
     * @param configurationService the gateway's binder of route arguments.
     */
    public CellrateRateLimiter(final LimitRegistry registry, final ConfigurationService configurationService)
    {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.registry = registry;
    }

    public Mono<Response> isAllowed(final String routeId, final String id)
    {
        final Config config = getConfig().get(routeId);
        final NamedLimit limit;
        final long cost;
        if (null == config || null == config.getLimit())
        {
            limit = registry.limits().isEmpty() ? null : registry.limits().values().iterator().next();
            cost = null == config ? 1 : config.getCost();
        }
        else
        {
            limit = registry.get(config.getLimit());
            cost = config.getCost();
        }
        if (null == limit || (null == limit.decider && null == limit.redis))
        {
            return Mono.error(new IllegalStateException("route " + routeId + ": " + CONFIGURATION_PROPERTY_NAME +
                ".limit must name an enforce or dry-run limit under cellrate.limits " + registry.names() +
                " but was " + (null == config ? null : config.getLimit())));
        }
        final CharSequence key = null == id || id.isEmpty() || id.length() > LimitRegistry.MAX_KEY_LENGTH ?
            limit.fallback : id;
        if (null != limit.redis)
        {
            final Decision decision = new Decision();
            return Mono.create(sink -> limit.redis.tryAcquireAsync(key, cost, decision,
                code -> sink.success(response(limit, limit.countString(key, code), decision,
                    registry.scratch()))));
        }
        final NamedLimit.Scratch s = registry.scratch();
        final long code = limit.decideLocal(key, cost, limit.clock.nanoTime(), s.decision);
        return Mono.just(response(limit, code, s.decision, s));
    }

    private static Response response(
        final NamedLimit limit, final long code, final Decision decision, final NamedLimit.Scratch s)
    {
        final boolean allowed = Result.isAdmitted(code);
        final int n = limit.headerFields(decision, !allowed, Result.WOULD_HAVE_REJECTED == code, s);
        if (0 == n)
        {
            return new Response(allowed, Collections.emptyMap());
        }
        final Map<String, String> headers = new LinkedHashMap<>(8);
        for (int i = 0; i < n; i++)
        {
            headers.put(s.names[i], s.values[i]);
        }
        return new Response(allowed, headers);
    }

    /** A route's arguments. */
    public static class Config
    {
        /** The limit's name under {@code cellrate.limits}. */
        private String limit;

        /** Permits each request costs, at least 1. */
        private long cost = 1;

        public String getLimit()
        {
            return limit;
        }

        public Config setLimit(final String limit)
        {
            this.limit = limit;
            return this;
        }

        public long getCost()
        {
            return cost;
        }

        public Config setCost(final long cost)
        {
            this.cost = cost;
            return this;
        }
    }
}
