package dev.cellrate.spring.autoconfigure;

import dev.cellrate.micrometer.CellrateMetrics;
import dev.cellrate.spring.CellrateFilter;
import dev.cellrate.spring.CellrateProperties;
import dev.cellrate.spring.CellrateRateLimiter;
import dev.cellrate.spring.CellrateWebFilter;
import dev.cellrate.spring.LimitRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Configures cellrate from the {@code cellrate.*} properties: the limits ({@link LimitRegistry}), the Servlet
 * filter or the WebFlux web filter, the Spring Cloud Gateway rate limiter, {@code @RateLimited}, the Micrometer
 * meters and the actuator endpoint, each when its framework is on the class path.
 * <p>
 * A bean of type {@link NanoClock}, if the application defines one, is the clock of local decisions.
 */
@AutoConfiguration(beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnProperty(prefix = "cellrate", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(CellrateProperties.class)
public class CellrateAutoConfiguration
{
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LimitRegistry cellrateLimits(final CellrateProperties properties, final ObjectProvider<NanoClock> clock)
    {
        return new LimitRegistry(properties, clock.getIfAvailable(SystemNanoClock::new));
    }

    /** The Servlet filter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({CellrateFilter.class, FilterRegistrationBean.class, jakarta.servlet.Filter.class})
    public static class ServletConfiguration
    {
        @Bean
        @ConditionalOnMissingBean(name = "cellrateFilter")
        public FilterRegistrationBean<CellrateFilter> cellrateFilter(
            final LimitRegistry limits, final CellrateProperties properties)
        {
            final FilterRegistrationBean<CellrateFilter> bean = new FilterRegistrationBean<>(new CellrateFilter(limits));
            bean.setOrder(properties.getFilterOrder());
            bean.setName("cellrateFilter");
            return bean;
        }
    }

    /** The WebFlux web filter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
    @ConditionalOnProperty(prefix = "cellrate", name = "web-filter", havingValue = "true", matchIfMissing = true)
    public static class ReactiveConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        public CellrateWebFilter cellrateWebFilter(final LimitRegistry limits, final CellrateProperties properties)
        {
            return new CellrateWebFilter(limits, properties.getFilterOrder());
        }
    }

    /** The Spring Cloud Gateway rate limiter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnProperty(name = "spring.cloud.gateway.server.webflux.enabled", havingValue = "true",
        matchIfMissing = true)
    public static class GatewayConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        public CellrateRateLimiter cellrateRateLimiter(
            final LimitRegistry limits, final ConfigurationService configurationService)
        {
            return new CellrateRateLimiter(limits, configurationService);
        }
    }

    /** Meters through cellrate-micrometer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, CellrateMetrics.class})
    public static class MetricsConfiguration
    {
        @Bean
        @ConditionalOnMissingBean(name = "cellrateMeterBinder")
        public MeterBinder cellrateMeterBinder(final LimitRegistry limits)
        {
            return new CellrateMetrics(limits.statFile().reader());
        }
    }
}
