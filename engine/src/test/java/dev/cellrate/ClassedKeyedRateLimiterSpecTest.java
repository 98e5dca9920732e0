package dev.cellrate;

import dev.cellrate.table.SlotTable;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user of {@link ClassedKeyedRateLimiter} sees where the reference tests do not look: every key form
 * (long, CharSequence, byte[], DirectBuffer) charges its key once per request under the class the mapping gave it
 * at insert, and asks the mapping once per key; the accessors; and construction refusals that name the field.
 */
class ClassedKeyedRateLimiterSpecTest
{
    private static final long T_NS = 100;
    /** Class 0: burst 1. Class 1: burst 2 (tau = T). */
    private static final Limit[] LIMITS = {Limit.ofGcra(T_NS, 0), Limit.ofGcra(T_NS, T_NS)};

    /** Class 1 for keys starting with 'p' (or odd long keys), class 0 otherwise; counts its calls. */
    private static final class ByPrefix implements KeyClassifier
    {
        int calls;

        @Override
        public int classOf(final long key)
        {
            calls++;
            return (int)(key & 1);
        }

        @Override
        public int classOf(final CharSequence key)
        {
            calls++;
            return key.charAt(0) == 'p' ? 1 : 0;
        }

        @Override
        public int classOf(final byte[] key, final int offset, final int length)
        {
            calls++;
            return key[offset] == 'p' ? 1 : 0;
        }

        @Override
        public int classOf(final DirectBuffer key, final int offset, final int length)
        {
            calls++;
            return key.getByte(offset) == 'p' ? 1 : 0;
        }
    }

    private static ClassedKeyedRateLimiter limiter(final KeyClassifier classifier, final NanoClock clock)
    {
        return TestFronts.classed(LIMITS, classifier, new SlotTable(4, 16, 16, 1_000_000L, 3L, clock),
            TableFullPolicy.REJECT);
    }

    @Test
    void everyKeyFormChargesItsKeyOnceUnderItsClassAndAsksTheMappingOncePerKey()
    {
        final ByPrefix classifier = new ByPrefix();
        final ClassedKeyedRateLimiter limiter = limiter(classifier, () -> 0);
        final byte[] proBytes = "pro-b".getBytes(StandardCharsets.UTF_8);
        final byte[] freeBytes = "xfree-b".getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer proBuffer = new UnsafeBuffer(new byte[16]);
        proBuffer.putBytes(3, "pro-d".getBytes(StandardCharsets.UTF_8));
        final UnsafeBuffer freeBuffer = new UnsafeBuffer(new byte[16]);
        freeBuffer.putBytes(2, "free-d".getBytes(StandardCharsets.UTF_8));

        // Class 1 (burst 2): two admissions, then a retry-after of T; class 0 (burst 1): one, then T.
        for (int i = 0; i < 2; i++)
        {
            assertEquals(Result.ADMITTED, limiter.tryAcquire(7L, 1, 1_000), "long key of class 1");
            assertEquals(Result.ADMITTED, limiter.tryAcquire("pro-c", 1, 1_000), "CharSequence of class 1");
            assertEquals(Result.ADMITTED, limiter.tryAcquire(proBytes, 0, proBytes.length, 1, 1_000), "byte[]");
            assertEquals(Result.ADMITTED, limiter.tryAcquire(proBuffer, 3, 5, 1, 1_000), "DirectBuffer");
        }
        assertEquals(T_NS, limiter.tryAcquire(7L, 1, 1_000));
        assertEquals(T_NS, limiter.tryAcquire("pro-c", 1, 1_000));
        assertEquals(T_NS, limiter.tryAcquire(proBytes, 0, proBytes.length, 1, 1_000));
        assertEquals(T_NS, limiter.tryAcquire(proBuffer, 3, 5, 1, 1_000));

        assertEquals(Result.ADMITTED, limiter.tryAcquire(8L, 1, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire("free-c", 1, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(freeBytes, 1, freeBytes.length - 1, 1, 1_000));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(freeBuffer, 2, 6, 1, 1_000));
        assertEquals(T_NS, limiter.tryAcquire(8L, 1, 1_000));
        assertEquals(T_NS - 30, limiter.tryAcquire("free-c", 1, 1_030));
        assertEquals(T_NS - 30, limiter.tryAcquire(freeBytes, 1, freeBytes.length - 1, 1, 1_030));
        assertEquals(T_NS - 30, limiter.tryAcquire(freeBuffer, 2, 6, 1, 1_030));

        assertEquals(8, classifier.calls, "once per key: a key with a cell is decided without the mapping");
        assertEquals(8, limiter.liveKeys());
        assertEquals(1, limiter.storedClassOf(7L));
        assertEquals(0, limiter.storedClassOf(8L));
        assertEquals(-1, limiter.storedClassOf(9L), "no cell");
        assertEquals(1_000 + 2 * T_NS, limiter.tatNs(7L));
    }

    @Test
    void aMappingOutsideTheClassesIsNeverForEveryKeyForm()
    {
        final KeyClassifier outside = new KeyClassifier()
        {
            @Override
            public int classOf(final long key)
            {
                return 2;
            }

            @Override
            public int classOf(final CharSequence key)
            {
                return -1;
            }

            @Override
            public int classOf(final byte[] key, final int offset, final int length)
            {
                return 2;
            }

            @Override
            public int classOf(final DirectBuffer key, final int offset, final int length)
            {
                return -1;
            }
        };
        final ClassedKeyedRateLimiter limiter = limiter(outside, () -> 0);
        final byte[] bytes = {1, 2, 3};
        final Decision decision = new Decision();
        assertEquals(Result.NEVER, limiter.tryAcquire(1L, 1, 0, decision));
        assertEquals(Result.NEVER, decision.code());
        assertEquals(Result.NEVER, limiter.tryAcquire("k", 1, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(bytes, 0, 3, 1, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(new UnsafeBuffer(bytes), 0, 3, 1, 0));
        assertEquals(0, limiter.liveKeys(), "nothing claimed");
    }

    @Test
    void defaultMappingsPutCharacterAndByteKeysInClassZero()
    {
        final ClassedKeyedRateLimiter limiter = limiter(key -> 1, () -> 0);
        final byte[] bytes = {4, 5, 6};
        assertEquals(Result.ADMITTED, limiter.tryAcquire("s", 1, 0));
        assertEquals(T_NS, limiter.tryAcquire("s", 1, 0), "class 0: burst 1");
        assertEquals(Result.ADMITTED, limiter.tryAcquire(bytes, 0, 3, 1, 0));
        assertEquals(T_NS, limiter.tryAcquire(bytes, 0, 3, 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(new UnsafeBuffer(new byte[] {9, 9}), 0, 2, 1, 0));
        assertEquals(T_NS, limiter.tryAcquire(new UnsafeBuffer(new byte[] {9, 9}), 0, 2, 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire(5L, 2, 0), "the long form asks the mapping: class 1");
    }

    @Test
    void accessorsAnswerTheConfiguration()
    {
        final NanoClock clock = () -> 42;
        final SlotTable table = new SlotTable(8, 16, 16, 1_000_000L, 3L, clock);
        final ClassedKeyedRateLimiter limiter = TestFronts.classed(LIMITS, key -> 0, table,
            TableFullPolicy.ADMIT);
        assertEquals(2, limiter.classCount());
        assertSame(LIMITS[1], limiter.limit(1));
        assertSame(table, limiter.table());
        assertSame(table.evictionClock(), limiter.clock(), "the clock forms read the table's eviction clock");
        assertEquals(42, limiter.clock().nanoTime());
        assertEquals(0, limiter.evictions());
        limiter.setLimit(1, LIMITS[0]);
        assertSame(LIMITS[0], limiter.limit(1));
        assertEquals(2, limiter.classCount());
    }

    @Test
    void constructionRefusesWhatCannotWorkByName()
    {
        final KeyClassifier classifier = key -> 0;
        final IllegalArgumentException nullClass = assertThrows(IllegalArgumentException.class,
            () -> TestFronts.classed(new Limit[] {LIMITS[0], null}, classifier,
                new SlotTable(4, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.REJECT));
        assertTrue(nullClass.getMessage().contains("limits[1]"), nullClass.getMessage());
        final IllegalArgumentException nullFirst = assertThrows(IllegalArgumentException.class,
            () -> TestFronts.classed(new Limit[] {null}, classifier,
                new SlotTable(4, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.REJECT));
        assertTrue(nullFirst.getMessage().contains("limits[0]"), nullFirst.getMessage());

        // Two shards leave no shard bits for a class: refused for the table, whatever the number of classes.
        final IllegalArgumentException twoShards = assertThrows(IllegalArgumentException.class,
            () -> TestFronts.classed(new Limit[] {LIMITS[0]}, classifier,
                new SlotTable(2, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.REJECT));
        assertTrue(twoShards.getMessage().startsWith("table.shardCount must be at least 4"), twoShards.getMessage());
        // Four shards hold two classes, not three.
        final ClassedKeyedRateLimiter four = TestFronts.classed(LIMITS, classifier,
            new SlotTable(4, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.REJECT);
        assertEquals(2, four.classCount());
        final IllegalArgumentException three = assertThrows(IllegalArgumentException.class,
            () -> TestFronts.classed(new Limit[] {LIMITS[0], LIMITS[0], LIMITS[0]}, classifier,
                new SlotTable(4, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.REJECT));
        assertTrue(three.getMessage().startsWith("limits.length"), three.getMessage());
        final IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
            () -> TestFronts.classed(LIMITS, classifier,
                new SlotTable(4, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.OVERFLOW));
        assertTrue(overflow.getMessage().startsWith("tableFullPolicy"), overflow.getMessage());
        final ClassedKeyedRateLimiter limiter = four;
        final IllegalArgumentException badIndex = assertThrows(IllegalArgumentException.class,
            () -> limiter.setLimit(2, LIMITS[0]));
        assertTrue(badIndex.getMessage().startsWith("classIndex"), badIndex.getMessage());
    }
}
