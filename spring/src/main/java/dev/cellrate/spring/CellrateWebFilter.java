package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.time.Duration;
import java.util.List;

/**
 * The WebFlux web filter: the same contract as {@link CellrateFilter} (one decision per request by the first
 * limit that matches; enforce, dry-run, shape, charge-after), without blocking the event loop.
 * <p>
 * Local decisions run on the calling thread and allocate nothing of their own; Redis decisions use the
 * asynchronous API and continue on Lettuce's I/O thread; shaping delays the request with a timer, never a
 * sleep; the principal is read from the exchange's {@code Mono}. A key that cannot be read is the limit's
 * fallback key: never an error.
 */
public final class CellrateWebFilter implements WebFilter, Ordered
{
    private final LimitRegistry registry;
    private final int order;

    /**
     * @param registry the limits.
     * @param order    the filter's order.
     */
    public CellrateWebFilter(final LimitRegistry registry, final int order)
    {
        this.registry = registry;
        this.order = order;
    }

    public int getOrder()
    {
        return order;
    }

    public Mono<Void> filter(final ServerWebExchange exchange, final WebFilterChain chain)
    {
        final ServerHttpRequest request = exchange.getRequest();
        final PathContainer path = registry.anyPaths() ? request.getPath().pathWithinApplication() : null;
        final NamedLimit limit = registry.match(request.getMethod().name(), path);
        if (null == limit)
        {
            return chain.filter(exchange);
        }
        if (KeySource.PRINCIPAL == limit.keySource)
        {
            return exchange.getPrincipal().map(Principal::getName).defaultIfEmpty("")
                .flatMap(name -> decide(limit, exchange, chain, name, 0));
        }
        final NamedLimit.Scratch s = registry.scratch();
        resolveKey(limit, exchange, s);
        return decide(limit, exchange, chain, s.stringKey, s.longKey);
    }

    private Mono<Void> decide(
        final NamedLimit limit, final ServerWebExchange exchange, final WebFilterChain chain, final CharSequence key,
        final long longKey)
    {
        final CharSequence stringKey = null != key && KeySource.PRINCIPAL == limit.keySource ?
            (key.length() == 0 || key.length() > LimitRegistry.MAX_KEY_LENGTH ? limit.fallback : key) : key;
        if (null != limit.redis)
        {
            return decideRedis(limit, exchange, chain, stringKey, longKey);
        }
        final NamedLimit.Scratch s = registry.scratch();
        switch (limit.mode)
        {
            case SHAPE:
                return shape(limit, exchange, chain, stringKey, longKey, s);
            case CHARGE_AFTER:
                return chargeAfter(limit, exchange, chain, stringKey, longKey, s);
            default:
                break;
        }
        final long nowNs = limit.clock.nanoTime();
        final Decision d = limit.wantsDecision() ? s.decision : null;
        final long code = null == stringKey ?
            limit.decideLocal(longKey, 1, nowNs, d) : limit.decideLocal(stringKey, 1, nowNs, d);
        return finish(limit, exchange, chain, code, null != d, s);
    }

    private Mono<Void> decideRedis(
        final NamedLimit limit, final ServerWebExchange exchange, final WebFilterChain chain,
        final CharSequence stringKey, final long longKey)
    {
        final Decision decision = new Decision();
        final CharSequence key = null == stringKey ? Long.toString(longKey) : stringKey;
        return Mono.<Long>create(sink -> limit.redis.tryAcquireAsync(key, 1, decision, sink::success))
            .flatMap(raw -> finish(limit, exchange, chain,
                null == stringKey ? limit.count(longKey, raw) : limit.countString(stringKey, raw), decision,
                registry.scratch()));
    }

    private Mono<Void> finish(
        final NamedLimit limit, final ServerWebExchange exchange, final WebFilterChain chain, final long code,
        final boolean filled, final NamedLimit.Scratch s)
    {
        return finish(limit, exchange, chain, code, filled ? s.decision : null, s);
    }

    private Mono<Void> finish(
        final NamedLimit limit, final ServerWebExchange exchange, final WebFilterChain chain, final long code,
        final Decision filled, final NamedLimit.Scratch s)
    {
        final Decision decision = null == filled ? s.decision : filled;
        if (Result.isAdmitted(code))
        {
            final boolean wouldReject = Result.WOULD_HAVE_REJECTED == code;
            if (null != filled || wouldReject)
            {
                if (null == filled)
                {
                    decision.setOutcome(Result.ADMITTED, 0, 0, limit.limit().burst());
                }
                final HttpHeaders headers = exchange.getResponse().getHeaders();
                setHeaders(headers, s, limit.headerFields(decision, false, wouldReject && null != filled, s));
                if (wouldReject && null == filled)
                {
                    headers.set(NamedLimit.X_RATELIMIT_DRY_RUN, NamedLimit.WOULD_REJECT);
                }
            }
            return chain.filter(exchange);
        }
        if (null == filled)
        {
            limit.fillRejected(code, 1, decision);
        }
        return reject(limit, exchange.getResponse(), decision, s);
    }

    private Mono<Void> chargeAfter(
        final NamedLimit limit, final ServerWebExchange exchange, final WebFilterChain chain,
        final CharSequence stringKey, final long longKey, final NamedLimit.Scratch s)
    {
        final long nowNs = limit.clock.nanoTime();
        final long code = null == stringKey ? limit.count(longKey, limit.local.peek(longKey, 1, nowNs)) :
            limit.countString(stringKey, limit.local.peek(stringKey, 1, nowNs));
        if (!Result.isAdmitted(code))
        {
            limit.fillRejected(code, 1, s.decision);
            return reject(limit, exchange.getResponse(), s.decision, s);
        }
        final ServerHttpResponse response = exchange.getResponse();
        response.beforeCommit(() ->
        {
            final HttpStatus status = null == response.getStatusCode() ? HttpStatus.OK :
                HttpStatus.resolve(response.getStatusCode().value());
            ChargeAfter.charge(limit, null == status ? 0 : status.value(),
                null == limit.costHeader ? null : response.getHeaders().getFirst(limit.costHeader), longKey,
                stringKey);
            return Mono.empty();
        });
        return chain.filter(exchange);
    }

    private Mono<Void> shape(
        final NamedLimit limit, final ServerWebExchange exchange, final WebFilterChain chain,
        final CharSequence stringKey, final long longKey, final NamedLimit.Scratch s)
    {
        final long nowNs = limit.clock.nanoTime();
        final long code = null == stringKey ?
            limit.shaper.reserve(longKey, 1, nowNs, s.reservation) :
            limit.shaper.reserve(stringKey, 1, nowNs, s.reservation);
        if (Result.isReserved(code) && code <= limit.maxDelayNs)
        {
            limit.stats.recordReservation(code);
            return 0 == code ? chain.filter(exchange) :
                Mono.delay(Duration.ofNanos(code)).then(chain.filter(exchange));
        }
        final long retryAfterNs;
        if (Result.isReserved(code))
        {
            if (null == stringKey)
            {
                limit.shaper.cancel(longKey, s.reservation, nowNs);
            }
            else
            {
                limit.shaper.cancel(stringKey, s.reservation, nowNs);
            }
            retryAfterNs = code - limit.maxDelayNs;
        }
        else
        {
            retryAfterNs = Result.isEncodedRetryAfter(code) ? Result.decodeRetryAfterNs(code) : Long.MAX_VALUE;
        }
        final long rejection = Long.MAX_VALUE == retryAfterNs ? Result.NEVER : retryAfterNs;
        limit.stats.record(rejection);
        s.decision.setOutcome(rejection, 0, Long.MAX_VALUE == retryAfterNs ? 0 : retryAfterNs, limit.limit().burst());
        return reject(limit, exchange.getResponse(), s.decision, s);
    }

    private Mono<Void> reject(
        final NamedLimit limit, final ServerHttpResponse response, final Decision decision, final NamedLimit.Scratch s)
    {
        response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
        final HttpHeaders headers = response.getHeaders();
        setHeaders(headers, s, limit.headerFields(decision, true, false, s));
        if (registry.problemDetails())
        {
            final byte[] body = ProblemBody.of(limit.name, decision.retryAfterNs());
            headers.set(HttpHeaders.CONTENT_TYPE, ProblemBody.CONTENT_TYPE);
            headers.setContentLength(body.length);
            final DataBuffer buffer = response.bufferFactory().wrap(body);
            return response.writeWith(Mono.just(buffer));
        }
        headers.setContentLength(0);
        return response.setComplete();
    }

    private static void setHeaders(final HttpHeaders headers, final NamedLimit.Scratch s, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            headers.set(s.names[i], s.values[i]);
        }
    }

    private static void resolveKey(final NamedLimit limit, final ServerWebExchange exchange, final NamedLimit.Scratch s)
    {
        final ServerHttpRequest request = exchange.getRequest();
        switch (limit.keySource)
        {
            case ADDRESS:
                CellrateFilter.longKey(limit, s, address(request.getRemoteAddress(), limit.ipv6Prefix));
                break;
            case FORWARDED:
                CellrateFilter.longKey(limit, s, forwarded(limit, request.getHeaders().get(limit.keyHeader), s));
                break;
            case HEADER:
                CellrateFilter.stringKey(limit, s, request.getHeaders().getFirst(limit.keyHeader));
                break;
            case PATH_VARIABLE:
                CellrateFilter.stringKey(limit, s,
                    limit.match.variable(request.getPath().pathWithinApplication(), limit.variable));
                break;
            default:
                CellrateFilter.stringKey(limit, s, CellrateFilter.spel(limit, request));
                break;
        }
    }

    /**
     * @param remote     the connection's remote address, or null.
     * @param prefixBits the IPv6 prefix kept.
     * @return its key, or {@link ClientAddress#NO_KEY}.
     */
    static long address(final InetSocketAddress remote, final int prefixBits)
    {
        if (null == remote)
        {
            return ClientAddress.NO_KEY;
        }
        final InetAddress address = remote.getAddress();
        if (null == address)
        {
            return ClientAddress.NO_KEY;
        }
        if (address instanceof Inet4Address)
        {
            return ClientAddress.IPV4_TAG | (address.hashCode() & 0xFFFF_FFFFL); // the address itself, no copy
        }
        return ClientAddress.of(address.getAddress(), prefixBits);
    }

    private static long forwarded(final NamedLimit limit, final List<String> values, final NamedLimit.Scratch s)
    {
        if (null == values || values.isEmpty() || values.size() > s.lines.length)
        {
            return ClientAddress.NO_KEY;
        }
        final int n = values.size();
        for (int i = 0; i < n; i++)
        {
            s.lines[i] = values.get(i);
        }
        final long key = ClientAddress.fromRight(s.lines, n, limit.trustedHops, limit.ipv6Prefix);
        java.util.Arrays.fill(s.lines, 0, n, null);
        return key;
    }
}
