package dev.cellrate.redis.modulepath;

import dev.cellrate.Decision;
import dev.cellrate.Limit;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.RedisRateLimiter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@code ModulePathIT} in a JVM where the engine is the module {@code dev.cellrate}, compiled with this
 * module's main sources against that module: three decisions through {@link RedisRateLimiter} on a live Redis,
 * then one on a port where no Redis listens (the fail policy answers).
 * Arguments: the live port, the dead port.
 */
public final class ModulePathMain
{
    private ModulePathMain()
    {
    }

    public static void main(final String[] args)
    {
        final int livePort = Integer.parseInt(args[0]);
        final int deadPort = Integer.parseInt(args[1]);
        System.out.println("engine-module=" + Limit.class.getModule().getName());
        System.out.println("redis-from=" + RedisRateLimiter.class.getProtectionDomain().getCodeSource().getLocation());
        final Limit limit = Limit.ofGcra(TimeUnit.SECONDS.toNanos(60), TimeUnit.SECONDS.toNanos(60)); // burst 2
        final RedisClient client = RedisClient.create();
        try
        {
            try (RedisRateLimiter limiter = RedisRateLimiter.builder(client, uri(livePort), limit, FailPolicy.CLOSED)
                .prefix("module-path:").timeoutNs(TimeUnit.SECONDS.toNanos(5)).startupWaitNs(TimeUnit.SECONDS.toNanos(10))
                .build())
            {
                final Decision decision = new Decision();
                final long nowNs = System.currentTimeMillis() * 1_000_000L;
                final long first = limiter.tryAcquire("user", 1, nowNs, decision);
                final long second = limiter.tryAcquire("user", 1, nowNs, decision);
                final long third = limiter.tryAcquire("user", 1, nowNs, decision);
                System.out.println("live=" + first + "," + second + "," + third + " remaining=" + decision.remaining() +
                    " roundTrips=" + limiter.roundTrips() + " fallbacks=" + limiter.fallbacks());
            }
            try (RedisRateLimiter limiter = RedisRateLimiter.builder(client, uri(deadPort), limit, FailPolicy.CLOSED)
                .timeoutNs(TimeUnit.MILLISECONDS.toNanos(200)).startupWaitNs(TimeUnit.MILLISECONDS.toNanos(200))
                .build())
            {
                System.out.println("dead=" + limiter.tryAcquire("user", 1, System.currentTimeMillis() * 1_000_000L));
            }
        }
        finally
        {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private static RedisURI uri(final int port)
    {
        return RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(5)).build();
    }
}
