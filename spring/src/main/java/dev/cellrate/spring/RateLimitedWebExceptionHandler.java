package dev.cellrate.spring;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * WebFlux: answers a {@link RateLimitedException} 429 with the refusing limit's headers (and the problem body when
 * {@code cellrate.problem-details} is on), ahead of Boot's error handler.
 */
public final class RateLimitedWebExceptionHandler implements WebExceptionHandler, Ordered
{
    private final LimitRegistry registry;

    /**
     * @param registry the limits.
     */
    public RateLimitedWebExceptionHandler(final LimitRegistry registry)
    {
        this.registry = registry;
    }

    public int getOrder()
    {
        return -2;
    }

    public Mono<Void> handle(final ServerWebExchange exchange, final Throwable ex)
    {
        if (!(ex instanceof RateLimitedException) || exchange.getResponse().isCommitted())
        {
            return Mono.error(ex);
        }
        final RateLimitedException refused = (RateLimitedException)ex;
        final ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
        final HttpHeaders headers = response.getHeaders();
        refused.headers(registry, headers::set);
        if (registry.problemDetails())
        {
            final byte[] body = refused.problemBody();
            headers.set(HttpHeaders.CONTENT_TYPE, ProblemBody.CONTENT_TYPE);
            headers.setContentLength(body.length);
            return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
        }
        headers.setContentLength(0);
        return response.setComplete();
    }
}
