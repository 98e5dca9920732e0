package dev.cellrate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An error about one key's data (a key of another type, a value that is not a TAT) is answered for that key with
 * {@link RedisRateLimiter#REJECTED_KEY_ERROR}, counted apart, and never moves the circuit breaker: every other
 * key is still decided by Redis, exactly as the engine decides it.
 */
class KeyErrorTest
{
    private static final long EPOCH_NS = 1_764_000_000_000_000_000L;
    @RegisterExtension
    static final SharedRedis redis = new SharedRedis();

    @ParameterizedTest
    @EnumSource(FailPolicy.class)
    void aWrongTypeKeyIsAnsweredForThatKeyAndHealthyKeysKeepBeingDecided(final FailPolicy policy) throws Exception
    {
        final String prefix = "poison:" + policy + ":" + System.nanoTime() + ":";
        final Limit limit = Limit.ofGcra(10_000_000, 40_000_000); // 100/s, burst 5
        final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, limit, policy)
            .prefix(prefix).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
        final KeyedRateLimiter engine = KeyedRateLimiter.builder(limit).expectedKeys(64).build();
        final RedisCommands<String, String> sync = redis.admin.sync();
        sync.hset(prefix + "bad", "f", "v");

        final Decision decision = new Decision();
        for (int i = 0; i < 10; i++)
        {
            assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, onRedis.tryAcquire("bad", 1, EPOCH_NS, decision), "call " + i);
            assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, decision.code());
            assertFalse(decision.admitted());
        }
        assertFalse(onRedis.breakerOpen(), "an error about one key is not Redis being down");
        assertEquals(0, onRedis.breakerOpenings());
        assertEquals(0, onRedis.fallbacks(), "no fail-policy answer");

        long nowNs = EPOCH_NS;
        final Decision expected = new Decision();
        for (int i = 0; i < 200; i++)
        {
            nowNs += 2_000_000L * (i % 5);
            final String key = "h" + (i % 7);
            if (i % 10 == 0)
            {
                assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, onRedis.tryAcquire("bad", 1, nowNs), "step " + i);
            }
            final long code = onRedis.tryAcquire(key, 1, nowNs, decision);
            assertEquals(engine.tryAcquire(key, 1, nowNs, expected), code, "step " + i);
            assertEquals(expected.remaining(), decision.remaining(), "step " + i);
        }
        final CompletableFuture<Long> async = new CompletableFuture<>();
        onRedis.tryAcquireAsync("bad", 1, nowNs, null, async::complete);
        assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, async.get(5, TimeUnit.SECONDS));
        assertEquals(0, onRedis.fallbacks(), "no fail-policy answer");
        assertEquals(0, onRedis.breakerOpenings());
        assertEquals(31, onRedis.keyErrors());
        assertEquals("hash", sync.type(prefix + "bad"), "the poisoned key is left as it is");
        onRedis.close();
    }

    @ParameterizedTest
    @EnumSource(FailPolicy.class)
    void aValueThatIsNotATatIsAKeyErrorNeverAFreshBurstNorAFailure(final FailPolicy policy)
    {
        final String prefix = "unreadable:" + policy + ":" + System.nanoTime() + ":";
        final Limit limit = Limit.ofGcra(10_000_000, 40_000_000);
        final RedisRateLimiter onRedis = RedisRateLimiter.builder(redis.connection, limit, policy)
            .prefix(prefix).timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
        final RedisCommands<String, String> sync = redis.admin.sync();
        // not a number; a number beyond 2^53 us (no reply integer can hold what Lua makes of it); a fraction; a sign
        final String[] values = {"not a number", "1e300", "9007199254740993", "12.5", "-5", "0x10", ""};
        for (int i = 0; i < values.length; i++)
        {
            sync.set(prefix + "v" + i, values[i]);
            for (int call = 0; call < 6; call++)
            {
                assertEquals(RedisRateLimiter.REJECTED_KEY_ERROR, onRedis.tryAcquire("v" + i, 1, EPOCH_NS),
                    "value '" + values[i] + "'");
            }
        }
        assertEquals(0, onRedis.fallbacks());
        assertFalse(onRedis.breakerOpen());
        assertEquals(Result.ADMITTED, onRedis.tryAcquire("healthy", 1, EPOCH_NS));
        assertTrue(onRedis.keyErrors() >= 6L * values.length);
        onRedis.close();
    }
}
