package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.ClassedKeyedRateLimiter;
import dev.cellrate.KeyClassifier;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.KeyedShaper;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.ShaperMode;
import dev.cellrate.TableFullPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The classed limiter and the keyed shaper on a table file: the same layout, the file recording the kind of front
 * and every class's limit; an opening as another kind, with other classes, or with other class limits is refused,
 * naming what differs.
 */
final class MappedFrontsTest
{
    private static final Limit GOLD = Limit.perSecond(10, 5);
    private static final Limit BASIC = Limit.perSecond(10, 2);

    /** Keys starting with "gold" are class 0, every other key class 1. */
    private static final KeyClassifier BY_PREFIX = new KeyClassifier()
    {
        public int classOf(final long key)
        {
            return 1;
        }

        public int classOf(final CharSequence key)
        {
            return key.toString().startsWith("gold") ? 0 : 1;
        }
    };

    @TempDir
    Path directory;

    private static ClassedKeyedRateLimiter classed(final Path file, final Limit... moreClasses)
    {
        return KeyedRateLimiter.builder(GOLD).shardCount(8).slotCount(1024).mappedFile(file)
            .buildClassed(BY_PREFIX, moreClasses);
    }

    private static int spend(final ClassedKeyedRateLimiter limiter, final String key, final long nowNs)
    {
        int admitted = 0;
        for (int i = 0; i < 20; i++)
        {
            admitted += Result.isAdmitted(limiter.tryAcquire(key, 1, nowNs)) ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void twoClassedLimitersOnOneFileShareKeysAndTheirClasses()
    {
        final Path file = directory.resolve("c.table");
        final ClassedKeyedRateLimiter a = classed(file, BASIC);
        final ClassedKeyedRateLimiter b = classed(file, BASIC);
        final long nowNs = System.nanoTime();
        assertEquals(5, spend(a, "gold-1", nowNs), "class 0: burst 5");
        assertEquals(2, spend(a, "basic-1", nowNs), "class 1: burst 2");
        assertEquals(0, spend(b, "gold-1", nowNs), "b sees what a spent");
        assertEquals(0, spend(b, "basic-1", nowNs));
        assertEquals(5, spend(b, "gold-2", nowNs));
        assertEquals(0, spend(a, "gold-2", nowNs));
        assertEquals(3, b.liveKeys());
    }

    @Test
    void otherClassesAreRefusedNamingTheClass()
    {
        final Path file = directory.resolve("c.table");
        classed(file, BASIC);
        final IllegalStateException otherLimit = assertThrows(IllegalStateException.class,
            () -> classed(file, Limit.perSecond(10, 3)));
        assertTrue(otherLimit.getMessage().contains("class 1 limit toleranceNs: the file has " + BASIC.toleranceNs() +
            ", this limiter asks for " + Limit.perSecond(10, 3).toleranceNs()), otherLimit.getMessage());
        final IllegalStateException moreClasses = assertThrows(IllegalStateException.class,
            () -> classed(file, BASIC, BASIC));
        assertTrue(moreClasses.getMessage().contains("limit count (classes): the file has 2, this limiter asks for 3"),
            moreClasses.getMessage());
        final IllegalStateException plain = assertThrows(IllegalStateException.class,
            () -> KeyedRateLimiter.builder(GOLD).shardCount(8).slotCount(1024).mappedFile(file).build());
        assertTrue(plain.getMessage().contains("table kind: the file holds a classed keyed limiter's table"),
            plain.getMessage());
    }

    @Test
    void aClassedConfigurationThatCannotBeIsRefusedBeforeAnyFileIsMade()
    {
        final Path file = directory.resolve("c.table");
        final IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(GOLD).shardCount(4).slotCount(1024).mappedFile(file)
                .tableFullPolicy(TableFullPolicy.OVERFLOW).buildClassed(BY_PREFIX, BASIC));
        assertTrue(overflow.getMessage().startsWith("tableFullPolicy must be REJECT or ADMIT"), overflow.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> KeyedRateLimiter.builder(GOLD).shardCount(4).slotCount(1024).mappedFile(file)
                .buildClassed(BY_PREFIX, BASIC, BASIC, BASIC));
        assertFalse(Files.exists(file));
    }

    @Test
    void twoShapersOnOneFileShareTheScheduleAndAShaperFileIsNoLimitersFile()
    {
        final Path file = directory.resolve("s.table");
        final KeyedShaper a = KeyedRateLimiter.builder(GOLD).slotCount(1024).mappedFile(file)
            .buildShaper(ShaperMode.delay());
        final KeyedShaper b = KeyedRateLimiter.builder(GOLD).slotCount(1024).mappedFile(file)
            .buildShaper(ShaperMode.delay());
        final KeyedShaper alone = KeyedRateLimiter.builder(GOLD).slotCount(1024).buildShaper(ShaperMode.delay());
        final long nowNs = System.nanoTime();
        for (int i = 0; i < 12; i++)
        {
            final KeyedShaper either = 0 == i % 2 ? a : b;
            assertEquals(alone.reserve("k", 1 + i % 3, nowNs + i, null), either.reserve("k", 1 + i % 3, nowNs + i, null),
                "two shapers on one file answer as one shaper does (request " + i + ")");
        }
        final IllegalStateException plain = assertThrows(IllegalStateException.class,
            () -> KeyedRateLimiter.builder(GOLD).slotCount(1024).mappedFile(file).build());
        assertTrue(plain.getMessage().contains("table kind: the file holds a keyed shaper's table"), plain.getMessage());
    }
}
