package dev.cellrate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.IOException;

/**
 * One server, one client and one shared byte-array connection for a test class.
 */
final class RedisFixture implements AutoCloseable
{
    final RedisServer server;
    final RedisClient client;
    final StatefulRedisConnection<byte[], byte[]> connection;

    RedisFixture() throws IOException
    {
        server = RedisServer.start();
        client = server.client();
        connection = RedisServer.connect(client);
    }

    public void close() throws InterruptedException
    {
        connection.close();
        client.shutdown();
        server.close();
    }
}
