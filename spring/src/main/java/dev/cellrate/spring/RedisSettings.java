package dev.cellrate.spring;

import java.time.Duration;

/**
 * The properties of {@link CellrateProperties.Redis}: the Redis server shared by the limits whose backend is
 * redis ({@code cellrate.redis.*}). Checked at start by {@link LimitRegistry}.
 */
abstract class RedisSettings
{
    /** The server's URI, e.g. redis://127.0.0.1:6379. */
    private String uri;

    /** What a decision answers when Redis cannot: open (admit), closed (reject) or local (decide locally). */
    private String failPolicy = "local";

    /** How long a decision waits for Redis before the fail policy answers, in [1ms, 10s]. */
    private Duration timeout = Duration.ofMillis(100);

    /** The prefix of every Redis key. */
    private String prefix = "cellrate:";

    public String getUri()
    {
        return uri;
    }

    public void setUri(final String uri)
    {
        this.uri = uri;
    }

    public String getFailPolicy()
    {
        return failPolicy;
    }

    public void setFailPolicy(final String failPolicy)
    {
        this.failPolicy = failPolicy;
    }

    public Duration getTimeout()
    {
        return timeout;
    }

    public void setTimeout(final Duration timeout)
    {
        this.timeout = timeout;
    }

    public String getPrefix()
    {
        return prefix;
    }

    public void setPrefix(final String prefix)
    {
        this.prefix = prefix;
    }
}
