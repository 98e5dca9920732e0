package dev.cellrate;

import dev.cellrate.table.SlotTable;
import dev.cellrate.table.TableLayout;
import dev.cellrate.testing.ModelCell;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-key limit classes: every class decides exactly like the exact GCRA of its limit ({@link ReferenceGcra}),
 * with keys of every class sharing one table, slots reclaimed from idle keys of one class for keys of another,
 * the mapping called once per insert, a class's limit changed mid-trace (TAT kept), 16 bytes per slot and no
 * allocation.
 */
final class ClassedKeyedRateLimiterTest
{
    static final Limit[] CLASSES = {
        Limit.perSecond(2, 2), Limit.perSecond(5, 8), Limit.perSecond(1, 1), Limit.ofGcra(700_000_001, 300_000_000) };

    static int classOf(final long key)
    {
        return (int)Math.floorMod(key * 0x9E37_79B9L, (long)CLASSES.length);
    }

    @Test
    void everyClassEqualsTheExactGcraIncludingReclaimedSlots()
    {
        for (int seed = 0; seed < 8; seed++)
        {
            final SplittableRandom random = new SplittableRandom(31 + seed);
            final CachedNanoClock clock = new CachedNanoClock();
            final AtomicLong mappingCalls = new AtomicLong();
            // Small grace and a table a little larger than the hot set: idle keys of one class are reclaimed for
            // keys of another class all the time.
            final SlotTable table = new SlotTable(8, 64, 64, 2_000_000_000L, 77L + seed, clock);
            final ClassedKeyedRateLimiter limiter = TestFronts.classed(CLASSES, key ->
            {
                mappingCalls.incrementAndGet();
                return classOf(key);
            }, table, TableFullPolicy.REJECT);
            final int keys = 2_000;
            final ReferenceGcra[] models = new ReferenceGcra[keys];
            final long[] lastSeenNs = new long[keys];
            long nowNs = 0;
            final long[] perClass = new long[CLASSES.length * 2];
            final Decision decision = new Decision();
            long tableFull = 0;
            long neverAbsent = 0;
            for (int i = 0; i < 60_000; i++)
            {
                nowNs += random.nextLong(0, 20_000_000L);
                clock.update(nowNs);
                final int k = random.nextInt(3) == 0 ? random.nextInt(keys) : random.nextInt(40);
                final int c = classOf(k);
                if (null == models[k] || lastSeenNs[k] < nowNs - 4_000_000_000L)
                {
                    // Idle for longer than any ceiling plus the grace: a full bucket either way (evicted or not).
                    models[k] = new ReferenceGcra(CLASSES[c].emissionIntervalNs(), CLASSES[c].toleranceNs());
                }
                final long permits = 1 + random.nextInt(random.nextInt(8) == 0 ? 8 : 2);
                final long code = random.nextBoolean()
                    ? limiter.tryAcquire(k, permits, nowNs)
                    : limiter.tryAcquire(k, permits, nowNs, decision);
                if (Result.TABLE_FULL == code)
                {
                    tableFull++;
                    continue;
                }
                lastSeenNs[k] = nowNs;
                neverAbsent += Result.NEVER == code && -1 == limiter.storedClassOf(k) ? 1 : 0;
                final long expected = models[k].decide(permits, nowNs);
                assertEquals(expected, code, "seed " + seed + " step " + i + " key " + k + " class " + c);
                assertEquals(Result.NEVER == code ? limiter.storedClassOf(k) : c, limiter.storedClassOf(k));
                perClass[c * 2 + (Result.ADMITTED == code ? 0 : 1)]++;
            }
            for (int c = 0; c < CLASSES.length; c++)
            {
                assertTrue(perClass[c * 2] > 100 && perClass[c * 2 + 1] > 100,
                    "class " + c + ": " + perClass[c * 2] + " admitted, " + perClass[c * 2 + 1] + " rejected");
            }
            assertTrue(limiter.evictions() > 1_000, "slots were reclaimed across classes: " + limiter.evictions());
            assertTrue(tableFull < 600, "table full " + tableFull);
            // Every insert adds one live key or reclaims one (a sweep turns a live key into an eviction).
            assertEquals(limiter.liveKeys() + limiter.evictions(), mappingCalls.get() - tableFull - neverAbsent,
                "the mapping is called once per absent key (insert, table full, or a cost above its class's burst), "
                    + "never for a present key");
        }
    }

    @Test
    void changingOneClassKeepsEveryTatAndLeavesTheOtherClasses()
    {
        final Limit[] choices = {
            Limit.perSecond(10, 10), Limit.perSecond(100, 5), Limit.perSecond(1, 1), Limit.perSecond(1_000, 100) };
        for (int seed = 0; seed < 6; seed++)
        {
            final SplittableRandom random = new SplittableRandom(900 + seed);
            final SlotTable table = new SlotTable(8, 128, 128, 1L << 62, 5L + seed, () -> Long.MAX_VALUE);
            final Limit[] current = CLASSES.clone();
            final ClassedKeyedRateLimiter limiter =
                TestFronts.classed(current, ClassedKeyedRateLimiterTest::classOf, table, TableFullPolicy.REJECT);
            final int keys = 400;
            final ModelCell[] models = new ModelCell[keys];
            for (int k = 0; k < keys; k++)
            {
                models[k] = new ModelCell();
            }
            long nowNs = 0;
            int changes = 0;
            for (int i = 0; i < 30_000; i++)
            {
                if (random.nextInt(100) == 0)
                {
                    final int c = random.nextInt(CLASSES.length);
                    current[c] = choices[random.nextInt(choices.length)];
                    limiter.setLimit(c, current[c]);
                    changes++;
                }
                nowNs += random.nextLong(0, 5_000_000L);
                final int k = random.nextInt(4) == 0 ? random.nextInt(keys) : random.nextInt(12);
                final long permits = 1 + random.nextInt(random.nextInt(8) == 0 ? 12 : 2);
                final long expected = models[k].decide(current[classOf(k)], permits, nowNs);
                assertEquals(expected, limiter.tryAcquire(k, permits, nowNs), "seed " + seed + " step " + i);
                if (null != models[k].tatNs)
                {
                    assertEquals(models[k].tatNs.longValueExact(), limiter.tatNs(k));
                }
            }
            assertTrue(changes > 200);
            assertEquals(current[2], limiter.limit(2));
        }
    }

    @Test
    void stringAndByteKeysUseTheirOwnForms()
    {
        final KeyClassifier byPrefix = new KeyClassifier()
        {
            public int classOf(final long key)
            {
                return 0;
            }

            public int classOf(final CharSequence key)
            {
                return key.length() > 0 && key.charAt(0) == 'p' ? 1 : 0;
            }

            public int classOf(final byte[] key, final int offset, final int length)
            {
                return length > 0 && key[offset] == 'p' ? 1 : 0;
            }
        };
        final ClassedKeyedRateLimiter limiter = TestFronts.classed(
            new Limit[] {Limit.perSecond(1, 1), Limit.perSecond(1, 3)}, byPrefix,
            new SlotTable(4, 16, 16, 1_000_000_000L, 3L, () -> 0), TableFullPolicy.REJECT);
        assertEquals(Result.ADMITTED, limiter.tryAcquire("free:a", 1, 0));
        assertTrue(limiter.tryAcquire("free:a", 1, 0) > 0);
        final byte[] pro = "pro:b".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(Result.ADMITTED, limiter.tryAcquire(pro, 0, pro.length, 1, 0));
        assertEquals(Result.ADMITTED, limiter.tryAcquire("pro:b", 2, 0), "same UTF-8 bytes, same key, class 1");
        assertTrue(limiter.tryAcquire("pro:b", 1, 0) > 0);
        assertEquals(1, limiter.table().classOf(limiter.table().keyWord("pro:b")));
        assertEquals(0, limiter.table().classOf(limiter.table().keyWord("free:a")));
    }

    @Test
    void aClassOutOfRangeIsNeverAndClaimsNothing()
    {
        final ClassedKeyedRateLimiter limiter = TestFronts.classed(CLASSES, key -> (int)key,
            new SlotTable(8, 16, 16, 1_000L, 3L, () -> 0), TableFullPolicy.REJECT);
        assertEquals(Result.NEVER, limiter.tryAcquire(4, 1, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(-1, 1, 0));
        assertEquals(0, limiter.liveKeys());
        assertEquals(Result.NEVER, limiter.tryAcquire(3, 0, 0));
        assertEquals(Result.NEVER, limiter.tryAcquire(1, 9, 0), "above class 1 burst of 8");
        assertEquals(0, limiter.liveKeys());
        assertEquals(Result.ADMITTED, limiter.tryAcquire(1, 8, 0));
        assertEquals(1, limiter.liveKeys());
    }

    @Test
    void reservedKeyWordsAreOrdinarySlotsInAClassedTable()
    {
        // The key words EMPTY (0) and TOMBSTONE (-1), and words equal to them outside the shard bits, are stored
        // with their class in the shard bits: never 0, never -1.
        final SlotTable table = new SlotTable(4, 8, 8, 1_000L, 11L, () -> 0);
        final ClassedKeyedRateLimiter limiter = TestFronts.classed(
            new Limit[] {Limit.ofGcra(100, 0), Limit.ofGcra(100, 100)}, key -> (int)(key & 1), table,
            TableFullPolicy.REJECT);
        final long[] words = {0, -1, 1L << TableLayout.SHARD_SHIFT, ~(1L << TableLayout.SHARD_SHIFT),
            3L << TableLayout.SHARD_SHIFT, ~(3L << TableLayout.SHARD_SHIFT)};
        for (final long word : words)
        {
            final long key = dev.cellrate.table.KeyHash.unmixLong(word, table.seed());
            assertEquals(word, table.keyWord(key));
            final int c = (int)(key & 1);
            assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
            assertEquals(c, limiter.storedClassOf(key));
            if (0 == c)
            {
                assertTrue(limiter.tryAcquire(key, 1, 0) > 0);
            }
            else
            {
                assertEquals(Result.ADMITTED, limiter.tryAcquire(key, 1, 0));
                assertTrue(limiter.tryAcquire(key, 1, 0) > 0);
            }
        }
        assertEquals(words.length, limiter.liveKeys());
        assertEquals(table.slotCount() - words.length, table.countSlots(0), "no key is stored as EMPTY");
        assertEquals(0, table.countSlots(-1), "no key is stored as TOMBSTONE");
    }

    @Test
    void tableFullAnswersThePolicy()
    {
        final ClassedKeyedRateLimiter reject = TestFronts.classed(CLASSES, ClassedKeyedRateLimiterTest::classOf,
            new SlotTable(8, 1, 1, 1L << 62, 3L, () -> 0), TableFullPolicy.REJECT);
        final ClassedKeyedRateLimiter admit = TestFronts.classed(CLASSES, ClassedKeyedRateLimiterTest::classOf,
            new SlotTable(8, 1, 1, 1L << 62, 3L, () -> 0), TableFullPolicy.ADMIT);
        long rejected = 0;
        long admittedFull = 0;
        for (long k = 0; k < 100; k++)
        {
            rejected += Result.TABLE_FULL == reject.tryAcquire(k, 1, 0) ? 1 : 0;
            admittedFull += Result.ADMITTED_TABLE_FULL == admit.tryAcquire(k, 1, 0) ? 1 : 0;
        }
        assertEquals(100 - reject.liveKeys(), rejected);
        assertEquals(100 - admit.liveKeys(), admittedFull);
        assertTrue(rejected > 80);
    }

    @Test
    void badConfigurationNamesTheField()
    {
        final KeyClassifier zero = key -> 0;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestFronts.classed(CLASSES, zero,
            new SlotTable(2, 16, 16, 1_000L, 3L), TableFullPolicy.REJECT)).getMessage().contains("shardCount"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestFronts.classed(CLASSES, zero,
            new SlotTable(4, 16, 16, 1_000L, 3L), TableFullPolicy.REJECT)).getMessage().contains("limits.length"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TestFronts.classed(CLASSES, zero,
            new SlotTable(8, 16, 16, 1_000L, 3L), TableFullPolicy.OVERFLOW)).getMessage().contains("tableFullPolicy"));
        assertEquals(16, new SlotTable(64, 16, 16, 1_000L, 3L).classCapacity());
        assertEquals(6, new SlotTable(8, 16, 16, 1_000L, 3L).classCapacity());
        final ClassedKeyedRateLimiter limiter = TestFronts.classed(CLASSES, zero,
            new SlotTable(8, 16, 16, 1_000L, 3L), TableFullPolicy.REJECT);
        assertThrows(IllegalArgumentException.class, () -> limiter.setLimit(4, Limit.perSecond(1, 1)));
        assertThrows(IllegalArgumentException.class, () -> limiter.setLimit(0, null));
    }

    @Test
    void sixteenBytesPerSlotAndNoAllocation()
    {
        final CachedNanoClock clock = new CachedNanoClock();
        final SlotTable table = new SlotTable(8, 16, 16, 1_000_000L, 3L, clock);
        final ClassedKeyedRateLimiter limiter =
            TestFronts.classed(CLASSES, ClassedKeyedRateLimiterTest::classOf, table, TableFullPolicy.REJECT);
        assertEquals(TableLayout.length(8, 8 * 16), table.capacityBytes(), "the plain table's bytes: 16 per slot");
        final Decision decision = new Decision();
        final String[] names = {"user:a", "user:b", "user:c", "user:d"};
        final long[] now = {0};
        ZeroAllocation.assertAllocatesNothing("classed decisions, inserts and reclaims", () ->
        {
            long sink = 0;
            for (int i = 0; i < 200_000; i++)
            {
                now[0] += 10_000 * (i & 7);
                clock.update(now[0]);
                final long key = i % 300;
                switch (i & 3)
                {
                    case 0:
                        sink += limiter.tryAcquire(key, 1 + (i & 1), now[0]);
                        break;
                    case 1:
                        sink += limiter.tryAcquire(names[i & 3], 1, now[0], decision);
                        break;
                    default:
                        sink += limiter.tryAcquire(key, 1, now[0], decision);
                }
            }
            return sink;
        });
        assertEquals(TableLayout.length(8, 8 * 16), table.capacityBytes());
        assertTrue(limiter.evictions() > 0);
    }

    /**
     * What a user of {@link ClassedKeyedRateLimiter} sees where the reference tests do not look: every key form
     * (long, CharSequence, byte[], DirectBuffer) charges its key once per request under the class the mapping gave it
     * at insert, and asks the mapping once per key; the accessors; and construction refusals that name the field.
     */
    @Nested
    final class Specification
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
}
