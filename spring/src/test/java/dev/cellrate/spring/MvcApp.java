package dev.cellrate.spring;

import jakarta.servlet.http.HttpServletResponse;
import org.agrona.concurrent.NanoClock;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A Spring MVC application on Tomcat for the tests. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({MvcApp.Api.class, Quotes.class})
class MvcApp
{
    static final ManualClock CLOCK = new ManualClock();

    @Bean
    NanoClock testClock()
    {
        return CLOCK;
    }

    @Bean
    org.springframework.web.servlet.function.RouterFunction<org.springframework.web.servlet.function.ServerResponse>
        functionalRoutes(final LimitRegistry limits)
    {
        return org.springframework.web.servlet.function.RouterFunctions.route()
            .GET("/fn/{x}", request -> org.springframework.web.servlet.function.ServerResponse.ok()
                .body("fn " + request.pathVariable("x")))
            .filter(CellrateFilterFunctions.rateLimit(limits, "fn", request -> request.headers().firstHeader("X-Client")))
            .build();
    }

    /** Stands in for a security filter: the X-User header becomes the request's principal. */
    @Bean
    org.springframework.boot.web.servlet.FilterRegistrationBean<jakarta.servlet.Filter> testPrincipal()
    {
        final org.springframework.boot.web.servlet.FilterRegistrationBean<jakarta.servlet.Filter> bean =
            new org.springframework.boot.web.servlet.FilterRegistrationBean<>((request, response, chain) ->
            {
                final jakarta.servlet.http.HttpServletRequest http = (jakarta.servlet.http.HttpServletRequest)request;
                final String user = http.getHeader("X-User");
                chain.doFilter(null == user ? request : new jakarta.servlet.http.HttpServletRequestWrapper(http)
                {
                    public java.security.Principal getUserPrincipal()
                    {
                        return () -> user;
                    }
                }, response);
            });
        bean.setOrder(-1_000);
        return bean;
    }

    @RestController
    static class Api
    {
        private final Quotes quotes;

        Api(final Quotes quotes)
        {
            this.quotes = quotes;
        }

        @GetMapping("/quote")
        String quote(@RequestParam final String user, @RequestParam final String tenant)
        {
            return quotes.both(user, tenant);
        }

        @GetMapping({"/api/{x}", "/dry/{x}", "/fwd/{x}", "/addr/{x}", "/spel/{x}", "/shape/{x}", "/rapi/{x}", "/me/{x}", "/live/{x}", "/tiers/{x}"})
        String ok(@PathVariable final String x)
        {
            return "ok " + x;
        }

        @GetMapping("/users/{id}/items")
        String items(@PathVariable final String id)
        {
            return "items of " + id;
        }

        @GetMapping("/login")
        String login(@RequestHeader(value = "pw", required = false) final String pw, final HttpServletResponse response)
        {
            if (!"secret".equals(pw))
            {
                response.setStatus(401);
                return "no";
            }
            return "welcome";
        }
    }
}
