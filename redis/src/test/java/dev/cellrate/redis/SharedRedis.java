package dev.cellrate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link RedisFixture} for a whole test class, plus a string connection for looking at and poisoning keys:
 * {@code @RegisterExtension static final SharedRedis redis = new SharedRedis();}.
 */
final class SharedRedis implements BeforeAllCallback, AfterAllCallback
{
    private RedisFixture fixture;
    RedisClient client;
    StatefulRedisConnection<byte[], byte[]> connection;
    StatefulRedisConnection<String, String> admin;

    public void beforeAll(final ExtensionContext context) throws Exception
    {
        fixture = new RedisFixture();
        client = fixture.client;
        connection = fixture.connection;
        admin = client.connect(StringCodec.UTF8);
    }

    public void afterAll(final ExtensionContext context) throws Exception
    {
        admin.close();
        fixture.close();
    }
}
