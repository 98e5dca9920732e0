package dev.cellrate.spring;

import dev.cellrate.Limit;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.RedisRateLimiter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.time.Duration;
import java.util.Locale;

/**
 * The Redis connection shared by the limits whose backend is redis (loaded only when one is: cellrate-redis
 * and Lettuce are then needed on the class path).
 */
final class RedisBackend implements AutoCloseable
{
    private final CellrateProperties.Redis properties;
    private final FailPolicy policy;
    private final Duration timeout;
    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;

    RedisBackend(final CellrateProperties.Redis p)
    {
        this.properties = p;
        if (null == p.getUri() || p.getUri().isBlank())
        {
            throw new IllegalArgumentException(
                "cellrate.redis.uri must be set (e.g. redis://127.0.0.1:6379) when a limit has backend redis");
        }
        try
        {
            policy = FailPolicy.valueOf(p.getFailPolicy().trim().toUpperCase(Locale.ROOT));
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(
                "cellrate.redis.fail-policy must be one of open, closed, local but was '" + p.getFailPolicy() + "'");
        }
        this.timeout = LimitRegistry.requireDuration("cellrate.redis.timeout", p.getTimeout(), Duration.ofMillis(1),
            Duration.ofSeconds(10));
        try
        {
            this.client = RedisClient.create(p.getUri());
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(
                "cellrate.redis.uri must be a Redis URI (redis://host:port) but was '" + p.getUri() + "'", ex);
        }
        try
        {
            this.connection = client.connect(ByteArrayCodec.INSTANCE);
        }
        catch (final RuntimeException ex)
        {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            throw new IllegalStateException("cellrate.redis.uri: cannot connect to " + p.getUri() + ": " +
                ex.getMessage(), ex);
        }
    }

    RedisRateLimiter limiter(final Limit limit, final String name)
    {
        return RedisRateLimiter.builder(connection, limit, policy).prefix(properties.getPrefix() + name + ':')
            .name(name).timeoutNs(timeout.toNanos()).build();
    }

    public void close()
    {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
}
