package dev.cellrate.spring;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.Map;

/**
 * Applies a properties refresh (Spring Cloud's {@link EnvironmentChangeEvent}, e.g. from
 * {@code POST /actuator/refresh} or a config server) to the reconfigurable limits: each one whose rate, period
 * or burst changed gets its new limit, every key keeping its state. A value out of range is refused (the limit
 * keeps its old one) and logged; other changes under {@code cellrate.*} take effect at the next start.
 */
public final class RefreshListener implements ApplicationListener<EnvironmentChangeEvent>
{
    private static final org.apache.commons.logging.Log LOG =
        org.apache.commons.logging.LogFactory.getLog(RefreshListener.class);

    private final LimitRegistry registry;
    private final Environment environment;

    /**
     * @param registry    the limits.
     * @param environment the application's environment.
     */
    public RefreshListener(final LimitRegistry registry, final Environment environment)
    {
        this.registry = registry;
        this.environment = environment;
    }

    public void onApplicationEvent(final EnvironmentChangeEvent event)
    {
        if (event.getKeys().stream().noneMatch(k -> k.startsWith("cellrate.limits.")))
        {
            return;
        }
        final CellrateProperties properties = Binder.get(environment).bind("cellrate", CellrateProperties.class)
            .orElseGet(CellrateProperties::new);
        for (final Map.Entry<String, CellrateProperties.LimitProperties> e : properties.getLimits().entrySet())
        {
            final NamedLimit limit = registry.get(e.getKey());
            if (null == limit || !limit.reconfigurable())
            {
                continue;
            }
            final CellrateProperties.LimitProperties p = e.getValue();
            final long burst = 0 == p.getBurst() ? p.getRate() : p.getBurst();
            final Duration period = null == p.getPeriod() ? Duration.ofSeconds(1) : p.getPeriod();
            try
            {
                final dev.cellrate.Limit next =
                    dev.cellrate.Limit.of(p.getRate(), period.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS, burst);
                if (!next.equals(limit.limit()))
                {
                    registry.reconfigure(e.getKey(), p.getRate(), period, burst);
                }
            }
            catch (final IllegalArgumentException ex)
            {
                LOG.warn("cellrate.limits." + e.getKey() + " keeps its limit: " + ex.getMessage());
            }
        }
    }
}
