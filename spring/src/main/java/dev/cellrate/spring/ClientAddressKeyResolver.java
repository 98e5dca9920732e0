package dev.cellrate.spring;

import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A Spring Cloud Gateway {@link KeyResolver}: the connection's remote address, IPv4 whole and IPv6 by prefix
 * (a /64 by default), as the text {@link ClientAddress#toString(long)} gives. A connection with no address
 * resolves to {@code fallback}.
 */
public final class ClientAddressKeyResolver implements KeyResolver
{
    private final int ipv6Prefix;
    private final String fallback;

    /**
     * @param ipv6Prefix the IPv6 prefix that makes one client, in [1, 64].
     * @param fallback   the key of a connection with no address.
     */
    public ClientAddressKeyResolver(final int ipv6Prefix, final String fallback)
    {
        this.ipv6Prefix = (int)LimitRegistry.requireRange("ipv6Prefix", ipv6Prefix, 1, 64);
        this.fallback = fallback;
    }

    public Mono<String> resolve(final ServerWebExchange exchange)
    {
        final long key = CellrateWebFilter.address(exchange.getRequest().getRemoteAddress(), ipv6Prefix);
        return Mono.just(ClientAddress.NO_KEY == key ? fallback : ClientAddress.toString(key));
    }
}
