package dev.cellrate.redis;

import dev.cellrate.Limit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.concurrent.TimeUnit;

/**
 * The second JVM of {@link ConcurrencyTest}: hammers one key on server time until a deadline (server clock,
 * µs) and prints the permits it got admitted. Prints "ready" once connected, then reads the deadline from stdin
 * (the JVM's start-up must not eat the run). Arguments: port, prefix, key, interval ns, tolerance ns.
 */
public final class HammerClient
{
    private HammerClient()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int port = Integer.parseInt(args[0]);
        final RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (StatefulRedisConnection<byte[], byte[]> connection = RedisServer.connect(client))
        {
            final RedisRateLimiter limiter = RedisRateLimiter.builder(connection,
                    Limit.ofGcra(Long.parseLong(args[3]), Long.parseLong(args[4])), FailPolicy.CLOSED)
                .prefix(args[1]).timeoutNs(TimeUnit.SECONDS.toNanos(5)).extraTtlMs(60_000).build();
            ConcurrencyTest.serverTimeUs(connection); // warm the connection and the classes
            System.out.println("ready");
            System.out.flush();
            final String deadline = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
            final long[] result = ConcurrencyTest.hammer(limiter, args[2], Long.parseLong(deadline.trim()), connection);
            System.out.println(result[0]);
            System.out.println("fallbacks " + limiter.fallbacks());
            System.out.println(result[1]);
            limiter.close();
        }
        finally
        {
            client.shutdown();
        }
    }
}
