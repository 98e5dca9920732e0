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
@Import(FluxApp.Api.class)
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

    @Bean
    KeyResolver clientKey()
    {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"))
            .defaultIfEmpty("anonymous");
    }

    @RestController
    static class Api
    {
        @GetMapping({"/flux/{x}", "/fluxdry/{x}"})
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
