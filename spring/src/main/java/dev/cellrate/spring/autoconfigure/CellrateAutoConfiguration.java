package dev.cellrate.spring.autoconfigure;

import dev.cellrate.micrometer.CellrateMetrics;
import dev.cellrate.spring.CellrateEndpoint;
import dev.cellrate.spring.CellrateFilter;
import dev.cellrate.spring.CellrateProperties;
import dev.cellrate.spring.CellrateRateLimiter;
import dev.cellrate.spring.CellrateWebFilter;
import dev.cellrate.spring.RateLimited;
import dev.cellrate.spring.RateLimitedExceptionResolver;
import dev.cellrate.spring.RateLimitedInterceptor;
import dev.cellrate.spring.RateLimitedWebExceptionHandler;
import dev.cellrate.spring.RefreshListener;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.core.type.AnnotationMetadata;
import dev.cellrate.spring.LimitRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
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
@AutoConfiguration(beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration",
    afterName = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration")
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

        @Bean
        @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
        @ConditionalOnMissingBean
        public RateLimitedExceptionResolver cellrateRateLimitedExceptionResolver(final LimitRegistry limits)
        {
            return new RateLimitedExceptionResolver(limits);
        }
    }

    /** The WebFlux web filter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
    public static class ReactiveConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        public CellrateWebFilter cellrateWebFilter(final LimitRegistry limits, final CellrateProperties properties)
        {
            return new CellrateWebFilter(limits, properties.getFilterOrder());
        }

        @Bean
        @ConditionalOnMissingBean
        public RateLimitedWebExceptionHandler cellrateRateLimitedWebExceptionHandler(final LimitRegistry limits)
        {
            return new RateLimitedWebExceptionHandler(limits);
        }
    }

    /**
     * The Spring Cloud Gateway rate limiter, unless the application has a {@code RateLimiter} bean already (the
     * gateway's own {@code RedisRateLimiter} when spring-data-redis is present): two would make the gateway's
     * {@code RequestRateLimiter} factory ambiguous.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnProperty(name = "spring.cloud.gateway.server.webflux.enabled", havingValue = "true",
        matchIfMissing = true)
    public static class GatewayConfiguration
    {
        @Bean
        @ConditionalOnMissingBean(type = "org.springframework.cloud.gateway.filter.ratelimit.RateLimiter")
        public CellrateRateLimiter cellrateRateLimiter(
            final LimitRegistry limits, final ConfigurationService configurationService)
        {
            return new CellrateRateLimiter(limits, configurationService);
        }
    }

    /** {@code @RateLimited} on beans. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.aopalliance.intercept.MethodInterceptor")
    @Import(AutoProxyRegistrar.class)
    public static class AnnotationConfiguration
    {
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean(name = "cellrateRateLimitedAdvisor")
        public static Advisor cellrateRateLimitedAdvisor(final ObjectProvider<LimitRegistry> limits)
        {
            final ComposablePointcut pointcut = new ComposablePointcut(
                AnnotationMatchingPointcut.forMethodAnnotation(RateLimited.class))
                .union(AnnotationMatchingPointcut.forMethodAnnotation(RateLimited.List.class));
            return new DefaultPointcutAdvisor(pointcut, new LazyInterceptor(limits));
        }
    }

    /** Registers Spring's infrastructure auto-proxy creator once, or reuses the one already registered. */
    static final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar
    {
        public void registerBeanDefinitions(
            final AnnotationMetadata metadata, final BeanDefinitionRegistry registry)
        {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
            AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
        }
    }

    /** The interceptor, built when first used (the advisor is created before ordinary beans). */
    static final class LazyInterceptor implements MethodInterceptor
    {
        private final ObjectProvider<LimitRegistry> limits;
        private volatile RateLimitedInterceptor interceptor;

        LazyInterceptor(final ObjectProvider<LimitRegistry> limits)
        {
            this.limits = limits;
        }

        public Object invoke(final MethodInvocation invocation) throws Throwable
        {
            RateLimitedInterceptor i = interceptor;
            if (null == i)
            {
                synchronized (this)
                {
                    i = interceptor;
                    if (null == i)
                    {
                        interceptor = i = new RateLimitedInterceptor(limits.getObject());
                    }
                }
            }
            return i.invoke(invocation);
        }
    }

    /** Reconfigurable limits follow a properties refresh. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
    public static class RefreshConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        public RefreshListener cellrateRefreshListener(
            final LimitRegistry limits, final org.springframework.core.env.Environment environment)
        {
            return new RefreshListener(limits, environment);
        }
    }

    /** The actuator endpoint. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.actuate.endpoint.annotation.Endpoint",
        "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
    public static class EndpointConfiguration
    {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint(endpoint = CellrateEndpoint.class)
        public CellrateEndpoint cellrateEndpoint(final LimitRegistry limits)
        {
            return new CellrateEndpoint(limits);
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
