package dev.cellrate.spring;

import org.agrona.concurrent.NanoClock;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A WebFlux application with Spring Cloud Gateway on Reactor Netty for the tests. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({FluxApp.Api.class, FluxApp.Reports.class})
class FluxApp
{
    static final ProbeClock CLOCK = new ProbeClock();

    @Bean
    NanoClock testClock()
    {
        return CLOCK;
    }

    @Bean
    NettyReactiveWebServerFactory nettyFactory()
    {
        return new NettyReactiveWebServerFactory();
    }

    /** Stands in for a security filter: the X-User header becomes the authenticated principal. */
    @Bean
    org.springframework.web.server.WebFilter testPrincipal()
    {
        return new PrincipalFilter();
    }

    static final class PrincipalFilter implements org.springframework.web.server.WebFilter, org.springframework.core.Ordered
    {
        public int getOrder()
        {
            return -1_000;
        }

        public Mono<Void> filter(final org.springframework.web.server.ServerWebExchange exchange,
            final org.springframework.web.server.WebFilterChain chain)
        {
            final String user = exchange.getRequest().getHeaders().getFirst("X-User");
            if (null == user)
            {
                return chain.filter(exchange);
            }
            final java.security.Principal principal = () -> user;
            return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
        }
    }

    @Bean
    KeyResolver clientKey()
    {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"))
            .defaultIfEmpty("anonymous");
    }

    /** A bean with a rate-limited method. */
    static class Reports
    {
        @RateLimited(name = "fluxuser", key = "#user")
        public Mono<String> report(final String user)
        {
            return Mono.just("report for " + user);
        }
    }

    @RestController
    static class Api
    {
        private final Reports reports;

        Api(final Reports reports)
        {
            this.reports = reports;
        }

        @GetMapping("/fluxlogin")
        Mono<String> login(
            @org.springframework.web.bind.annotation.RequestHeader(value = "pw", required = false) final String pw,
            final org.springframework.http.server.reactive.ServerHttpResponse response)
        {
            if (!"secret".equals(pw))
            {
                response.setStatusCode(org.springframework.http.HttpStatus.UNAUTHORIZED);
                return Mono.just("no");
            }
            return Mono.just("welcome");
        }

        @GetMapping("/report/{user}")
        Mono<String> report(@PathVariable final String user)
        {
            return reports.report(user);
        }

        @GetMapping({"/flux/{x}", "/fluxdry/{x}", "/fluxshape/{x}", "/me/{x}", "/fluxfwd/{x}", "/fluxlive/{x}"})
        Mono<String> ok(@PathVariable final String x)
        {
            return Mono.just("ok " + x);
        }
    }

    /** The manual clock, also recording the threads local decisions run on (it is read inside each one). */
    static final class ProbeClock implements NanoClock
    {
        final ManualClock clock = new ManualClock();
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        volatile boolean allNonBlocking = true;

        public long nanoTime()
        {
            threads.add(Thread.currentThread().getName());
            if (!reactor.core.scheduler.Schedulers.isInNonBlockingThread())
            {
                allNonBlocking = false;
            }
            return clock.nanoTime();
        }
    }
}
