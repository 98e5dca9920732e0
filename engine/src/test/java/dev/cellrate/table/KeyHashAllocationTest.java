package dev.cellrate.table;

import java.nio.charset.StandardCharsets;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.ZeroAllocation;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Hashing a key (every form, ASCII and multi-byte UTF-8, one-shot and fed across calls) and deciding on it
 * through the keyed front allocate nothing.
 */
class KeyHashAllocationTest
{
    @Test
    void hashingAndKeyedDecisionsAllocateNothing()
    {
        // One byte per char with a byte above 0x7F ("caf\u00e9..."): the bytes path hands over to the chars path.
        final String[] strings = {"client-123456", "user:alice/€uro", "日本語のキー\uD83D\uDE00", "a", "",
            "caf\u00e9-cr\u00e8me", "latin1-key-\u00e9t\u00e9"};
        // A state fed across calls as well (SipHash.Parts' use), so that its encoder is also compiled on its own.
        final SipState state = new SipState(1, 2);
        final StringBuilder builder = new StringBuilder("builder-key-é");
        final byte[] bytes = "0123456789abcdefXYZ".getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final KeyedRateLimiter limiter = KeyedRateLimiter.builder(Limit.ofGcra(1, 1_000_000)).slotCount(64).build();
        ZeroAllocation.assertAllocatesNothing("KeyHash and keyed string/bytes/buffer decisions", () ->
        {
            long sink = 0;
            for (int i = 0; i < 200_000; i++)
            {
                final long nowNs = i;
                sink += KeyHash.hashCharSequence(strings[i % strings.length], i, 7);
                sink += KeyHash.hashCharSequence(builder, 3, i);
                sink += KeyHash.hashBytes(bytes, i & 3, 11, i, 1);
                sink += KeyHash.hashBuffer(buffer, i & 3, 13, 1, i);
                state.reset(i, 2);
                state.appendUtf8(strings[(i + 1) % strings.length], 0);
                state.appendBytes(bytes, i & 3, 9);
                sink += state.finish();
                sink += limiter.tryAcquire(strings[i % strings.length], 1, nowNs);
                sink += limiter.tryAcquire(bytes, 0, 16, 1, nowNs);
                sink += limiter.tryAcquire(buffer, 2, 16, 1, nowNs);
            }
            return sink;
        });
    }
}
